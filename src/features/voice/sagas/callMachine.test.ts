/**
 * The call's state machine on its own (callMachine.ts): each test takes the call from one
 * named state (src/features/voice/README.md) to the next and checks what it says to do.
 * call.test.ts runs the same machine through the saga with fake services.
 */
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../notices/messages.ts';
import { callAudioBack, callAudioLost, vadSpeechEnded, vadSpeechStarted } from '../voiceSlice.ts';
import { next, startCall, type CallEffect, type CallEvent } from './callMachine.ts';
import {
  CALL_START_SILENCE_MS,
  ECHO_TAIL_MS,
  LANG_CHANGE_SILENCE_MS,
  PENDING_RECOGNIZER_WAIT_MS,
  RECOGNIZER_RESTART_DELAYS_MS,
  SENTENCE_FINAL_WAIT_MS,
  callStates,
  type CallState,
} from './callState.ts';
import { NO_AUDIO_MS } from './resources.ts';

/** A call driven event by event on a clock of its own. */
function drive(start: Partial<Parameters<typeof startCall>[0]> = {}) {
  let now = 1_000_000;
  let ids = 0;
  let [state, effects] = startCall({ lang: 'en', avatarSpeaking: false, echoGated: true, received: 10, now, ...start });
  const call = {
    get state(): CallState {
      return state;
    },
    get effects(): CallEffect[] {
      return effects;
    },
    names: () => callStates(state),
    after(ms: number) {
      now += ms;
      return call;
    },
    send(event: CallEvent) {
      [state, effects] = next(state, event, { now, newId: () => `s${++ids}` });
      return effects;
    },
    /** Kinds of effect and sentence output, in order. */
    kinds: (list: CallEffect[]) => list.flatMap((e) => (e.type === 'act' ? e.outputs.map((o) => `act:${o.type}`) : [e.type])),
  };
  return call;
}

const connected = { type: 'recognizerSettled', ok: true, backlog: 0 } as const;

/** A call whose recognizer has connected and whose detector has joined. */
function listening(start: Partial<Parameters<typeof startCall>[0]> = {}) {
  const c = drive(start);
  c.send(connected);
  c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
  return c;
}
/** The avatar's last reply, as the store keeps it for the echo check. */
const AVATAR_SAID = ['the weather today is sunny and warm'];
const words = (text: string, extra: { atMs?: number; receivedMs?: number } = {}): CallEvent => ({
  type: 'recognized',
  text,
  receivedMs: 5000,
  avatarTexts: AVATAR_SAID,
  ...extra,
});

describe('a call as a state machine', () => {
  it('starts listening with its first recognizer opening at the call-start silence', () => {
    const c = drive();
    expect(c.effects).toEqual([{ type: 'openRecognizer', silenceMs: CALL_START_SILENCE_MS }]);
    expect(c.names()).toEqual(['listening']);
    expect(c.state.recognizer.status).toBe('connecting');
  });

  it('listening → a sentence open: speech starting interrupts the avatar', () => {
    const c = listening({ avatarSpeaking: true });
    expect(c.names()).toEqual(['listening', 'the avatar speaking']);
    expect(c.send({ type: 'speechStart' })).toEqual([{ type: 'put', action: vadSpeechStarted() }]);
    expect(c.names()).toContain('a sentence open');
    expect(c.kinds(c.send({ type: 'wakeEnded' }))).toEqual(['act:interrupt']);
  });

  it('a sentence open → waiting for words → listening: the final phrase sends the sentence', () => {
    const c = listening();
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.names()).toEqual(['waiting for words']);
    c.send(words('what time is it'));
    expect(c.names()).toEqual(['listening']);
    const acted = c.send({ type: 'wakeEnded' });
    expect(acted).toEqual([{ type: 'act', lang: 'en', outputs: [{ type: 'interrupt', msgId: 's1' }, { type: 'complete', msgId: 's1', phrases: ['what time is it'] }] }]);
  });

  it('waiting for words → listening: no words within the wait is "not recognised"', () => {
    const c = listening();
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    c.send({ type: 'wakeEnded' });
    c.after(SENTENCE_FINAL_WAIT_MS + 1).send({ type: 'tick' });
    expect(c.names()).toEqual(['listening']);
    expect(c.send({ type: 'wakeEnded' })).toEqual([
      { type: 'act', lang: 'en', outputs: [{ type: 'discarded', msgId: 's1', reason: 'nothing recognized' }] },
    ]);
  });

  it("the recognizer's backlog: a sentence ending while it connects waits 15 s for its words", () => {
    const c = drive();
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.state.sentences.closing?.deadline).toBe(1_000_000 + PENDING_RECOGNIZER_WAIT_MS);
  });

  it('the avatar speaking: with no echo gate the threshold rises and falls with it; with the gate it stays', () => {
    const open = drive({ echoGated: false });
    expect(open.send({ type: 'avatarLooked', speaking: true })).toEqual([{ type: 'threshold', raised: true }]);
    expect(open.names()).toContain('the avatar speaking');
    expect(open.send({ type: 'avatarLooked', speaking: false })).toEqual([{ type: 'threshold', raised: false }]);
    const gated = drive({ echoGated: true });
    expect(gated.send({ type: 'avatarLooked', speaking: true })).toEqual([]);
  });

  it('muted: the sentence in progress ends and detection pauses; unmuted, a silent microphone has NO_AUDIO_MS again', () => {
    const c = listening({ received: 0 });
    c.send({ type: 'speechStart' });
    expect(c.send({ type: 'muteToggled', muted: true, received: 0 })).toEqual([
      { type: 'pauseFeed', paused: true },
      { type: 'put', action: vadSpeechEnded() },
      { type: 'muteDetector', muted: true, why: 'mute' },
    ]);
    expect(c.names()).toEqual(['muted']);
    expect(c.state.audioCheckAt).toBeNull();
    c.after(10).send({ type: 'muteToggled', muted: false, received: 0 });
    expect(c.state.audioCheckAt).toBe(1_000_010 + NO_AUDIO_MS);
    expect(c.names()).toEqual(['listening']);
  });

  it('paused by the system: the recognizer closes and detections are ignored until the audio is back, muted if it was', () => {
    const c = drive();
    c.send(connected);
    expect(c.kinds(c.send({ type: 'audioLost', state: 'interrupted' }))).toEqual(['log', 'closeRecognizer', 'pauseFeed', 'put', 'put', 'muteDetector']);
    expect(c.effects).toContainEqual({ type: 'put', action: callAudioLost() });
    expect(c.names()).toEqual(['paused by the system']);
    expect(c.send({ type: 'speechStart' })).toEqual([]);
    expect(c.send({ type: 'langChosen', lang: 'jp' })).toEqual([]);
    const back = c.send({ type: 'audioBack', muted: true, received: 10 });
    expect(c.kinds(back)).toEqual(['log', 'pauseFeed', 'muteDetector', 'openRecognizer', 'resumeAvatarVoice', 'put']);
    expect(back).toContainEqual({ type: 'openRecognizer', silenceMs: CALL_START_SILENCE_MS });
    expect(back).toContainEqual({ type: 'put', action: callAudioBack() });
    expect(c.state.lang).toBe('jp');
    expect(c.names()).toEqual(['muted']);
  });

  it('reconnecting: a failed recognizer opens again after 1, 2 and 4 s; one more failure ends the call', () => {
    const c = drive();
    c.send(connected);
    for (const wait of RECOGNIZER_RESTART_DELAYS_MS) {
      c.send({ type: 'recognizerFailed', connectionLost: true, details: 'socket closed' });
      expect(c.names()).toContain('reconnecting');
      expect(c.state.recognizer.restartAt).toBe(1_000_000 + wait);
      expect(c.send({ type: 'restartDue' })).toEqual([{ type: 'openRecognizer', silenceMs: CALL_START_SILENCE_MS }]);
      c.send(connected);
    }
    const last = c.send({ type: 'recognizerFailed', connectionLost: true, details: 'socket closed' });
    expect(last.at(-1)).toEqual({ type: 'end', notice: { id: catalogue.speechUnreachable.id } });
  });

  it('reconnecting: a recognizer that fails while it is still connecting keeps the longer wait for the sentence it owes', () => {
    const c = drive();
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
    c.send({ type: 'recognizerFailed', connectionLost: true, details: 'connection failure' });
    expect(c.names()).toEqual(['reconnecting', 'listening']);
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.state.sentences.closing?.deadline).toBe(1_000_000 + PENDING_RECOGNIZER_WAIT_MS);
    c.send(connected);
    expect(c.names()).toContain('reconnecting');
  });

  it('reconnecting: a new language during the wait opens its recognizer at once, with its shorter silence, instead of the restart', () => {
    const c = drive();
    c.send(connected);
    c.send({ type: 'recognizerFailed', connectionLost: true, details: '' });
    expect(c.send({ type: 'langChosen', lang: 'jp' }).at(-1)).toEqual({ type: 'openRecognizer', silenceMs: LANG_CHANGE_SILENCE_MS });
    expect(c.state.recognizer.restartAt).toBeNull();
    expect(c.names()).not.toContain('reconnecting');
  });

  it('reconnecting: a phrase recognized in between starts the count again', () => {
    const c = drive();
    c.send(connected);
    c.send({ type: 'recognizerFailed', connectionLost: true, details: '' });
    c.send({ type: 'restartDue' });
    c.send(connected);
    c.send(words('hello'));
    expect(c.state.recognizer.restarts).toBe(0);
  });

  it("the detector's hand-over: while it loads, the recognizer's words open and close a sentence; the avatar's echo opens none", () => {
    const c = drive({ avatarSpeaking: true });
    c.send(connected);
    expect(c.send({ type: 'recognizing', text: 'the weather' })).toEqual([]);
    c.send(words('the weather today is sunny'));
    expect(c.names()).toEqual(['listening', 'the avatar speaking']);
    c.send({ type: 'avatarLooked', speaking: false });
    c.after(ECHO_TAIL_MS).send(words('what about tomorrow'));
    expect(c.effects).toEqual([
      { type: 'put', action: vadSpeechStarted() },
      { type: 'put', action: vadSpeechEnded() },
    ]);
    expect(c.kinds(c.send({ type: 'wakeEnded' }))).toEqual(['act:interrupt', 'act:complete']);
  });

  it("the detector's hand-over: a phrase spoken before the detector joined is still the recognizer's to mark", () => {
    const c = drive();
    c.send(connected);
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 3000 });
    c.send(words('an early question', { atMs: 2000 }));
    expect(c.kinds(c.send({ type: 'wakeEnded' }))).toEqual(['act:interrupt', 'act:complete']);
    c.send(words('a later phrase', { atMs: 4000 }));
    expect(c.state.sentences.early).toHaveLength(1);
  });

  it('a new language or a new network opens a new recognizer; the network one hears again what was not answered', () => {
    const c = drive();
    c.send(connected);
    expect(c.send({ type: 'langChosen', lang: 'kor' }).at(-1)).toEqual({ type: 'openRecognizer', silenceMs: LANG_CHANGE_SILENCE_MS });
    c.send(connected);
    c.send(words('hello', { receivedMs: 9000 }));
    const reopened = c.send({ type: 'networkChanged', receivedMs: 12_000 });
    expect(reopened.at(-1)).toEqual({ type: 'openRecognizer', silenceMs: CALL_START_SILENCE_MS, replayFromMs: 9000 - LANG_CHANGE_SILENCE_MS });
  });

  it("the first recognizer's failure to connect is the account's speech settings; a silent microphone ends the call", () => {
    expect(drive().send({ type: 'recognizerSettled', ok: false, error: 'bad key' }).at(-1)).toEqual({ type: 'end', notice: { id: catalogue.asrConfigFailed.id } });
    const silent = drive({ received: 0 });
    expect(silent.state.audioCheckAt).toBe(1_000_000 + NO_AUDIO_MS);
    expect(silent.send({ type: 'audioCheckDue', received: 0 }).at(-1)).toMatchObject({ type: 'end' });
    expect(drive({ received: 0 }).send({ type: 'audioCheckDue', received: 3 })).toEqual([]);
  });

  it("the visitor's onset holds the avatar's voice until its next reply; hanging up sends what is complete", () => {
    const c = drive();
    expect(c.send({ type: 'hold' })).toEqual([{ type: 'holdAvatar', held: true }]);
    expect(c.send({ type: 'hold' })).toEqual([]);
    expect(c.send({ type: 'release' })).toEqual([{ type: 'holdAvatar', held: false }]);
    c.send(connected);
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
    c.send({ type: 'speechStart' });
    c.send(words('good night'));
    expect(c.kinds(c.send({ type: 'hangUp' }))).toEqual(['act:interrupt', 'act:complete', 'end']);
    expect(c.effects.at(-1)).toEqual({ type: 'end', notice: null });
  });

  it('never changes the state it is given', () => {
    const c = drive();
    const before = c.state;
    const copy = structuredClone(before);
    c.send(connected);
    c.send({ type: 'speechStart' });
    c.send({ type: 'muteToggled', muted: true, received: 1 });
    expect(before).toEqual(copy);
    expect(c.state).not.toBe(before);
  });
});
