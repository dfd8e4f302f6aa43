/**
 * The call's statechart on its own (callMachine.ts): each test takes a region of the call
 * from one named state (callState.ts CallRegions; src/features/voice/README.md) to the
 * next and checks the effects it returns, as data. call.test.ts runs the same machine
 * through the saga with fake services.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '@reduxjs/toolkit';
import { catalogue } from '../../notices/messages.ts';
import { toastShown } from '../../notices/noticesSlice.ts';
import { sendRequested } from '../../signaling/signalingActions.ts';
import { initialVoiceState, sentenceRecognized, voiceSlice, type AvatarActivity, type VoiceState } from '../voiceSlice.ts';
import { next, startCall, type CallEffect, type CallEvent } from './callMachine.ts';
import {
  CALL_START_SILENCE_MS,
  ECHO_TAIL_MS,
  LANG_CHANGE_SILENCE_MS,
  PENDING_RECOGNIZER_WAIT_MS,
  RECOGNIZER_RESTART_DELAYS_MS,
  SENTENCE_FINAL_WAIT_MS,
  callView,
  type CallState,
} from './callState.ts';
import { NO_AUDIO_MS } from './resources.ts';

/** A call driven event by event on a clock of its own; the store's voice slice follows the effects' puts. */
function drive(start: Partial<Parameters<typeof startCall>[0]> = {}) {
  let now = 1_000_000;
  let ids = 0;
  let voice: VoiceState = { ...initialVoiceState, call: 'active', ...(start.avatarSpeaking ? { avatar: 'speaking' as const, replyId: 'r-1' } : {}) };
  let [state, effects] = startCall({ lang: 'en', avatarSpeaking: false, echoGated: true, received: 10, now, ...start });
  const call = {
    get state(): CallState {
      return state;
    },
    get effects(): CallEffect[] {
      return effects;
    },
    get regions() {
      return state.regions;
    },
    after(ms: number) {
      now += ms;
      return call;
    },
    /** The avatar's activity in the store (a command arrived). */
    avatarIs(activity: AvatarActivity) {
      voice = { ...voice, avatar: activity, replyId: activity === 'idle' ? null : 'r-1' };
      return call;
    },
    send(event: CallEvent) {
      [state, effects] = next(state, event, { now, newId: () => `s${++ids}`, voice, avatarSaid: AVATAR_SAID });
      for (const e of effects) if (e.type === 'put') voice = voiceSlice.reducer(voice, e.action);
      return effects;
    },
    /** The kinds of effect, a put by its action's type. */
    kinds: (list: CallEffect[]) => list.map((e) => (e.type === 'put' ? `put:${e.action.type}` : e.type)),
    puts: (list: CallEffect[]): Action[] => list.flatMap((e) => (e.type === 'put' ? [e.action] : [])),
  };
  return call;
}

const connected = { type: 'recognizerSettled', ok: true, backlog: 0 } as const;
const BREAK = sendRequested({ type: 'break' });

/** A call whose recognizer has connected and whose detector has joined. */
function listening(start: Partial<Parameters<typeof startCall>[0]> = {}) {
  const c = drive(start);
  c.send(connected);
  c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
  return c;
}
/** The avatar's last reply, as the store keeps it for the echo rule. */
const AVATAR_SAID = ['the weather today is sunny and warm'];
const words = (text: string, extra: { atMs?: number; receivedMs?: number } = {}): CallEvent => ({ type: 'recognized', text, receivedMs: 5000, ...extra });

describe('a call as a statechart', () => {
  it('starts listening with its first recognizer opening at the call-start silence', () => {
    const c = drive();
    expect(c.effects).toEqual([{ type: 'openRecognizer', lang: 'en', silenceMs: CALL_START_SILENCE_MS }]);
    expect(c.regions).toEqual({
      call: 'running',
      audio: 'live',
      recognizer: 'connecting',
      detector: 'loading',
      speech: 'quiet',
      sentence: 'listening',
      avatar: 'silent',
      avatarVoice: 'heard',
    });
  });

  it('listening → a sentence open: speech starting interrupts the avatar, its voice held (heard → held) and a break sent', () => {
    const c = listening({ avatarSpeaking: true });
    expect(c.regions).toMatchObject({ sentence: 'listening', avatar: 'speaking' });
    expect(c.send({ type: 'speechStart' })).toEqual([{ type: 'holdAvatar', held: true }, { type: 'put', action: BREAK }]);
    expect(c.regions).toMatchObject({ sentence: 'open', speech: 'heard', avatarVoice: 'held', avatar: 'silent' });
    expect(callView(c.state)).toEqual({ paused: false, muted: false, hearing: true });
  });

  it('a sentence open → waiting for words → listening: the final phrase sends the sentence', () => {
    const c = listening();
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.regions).toMatchObject({ sentence: 'waiting', speech: 'quiet' });
    expect(c.puts(c.send(words('what time is it')))).toEqual([sentenceRecognized({ msgId: 's1', text: 'what time is it' })]);
    expect(c.regions.sentence).toBe('listening');
  });

  it('waiting for words → listening: no words within the wait is "not recognised"', () => {
    const c = listening();
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.puts(c.after(SENTENCE_FINAL_WAIT_MS + 1).send({ type: 'tick' }))).toEqual([
      { type: toastShown.type, payload: expect.objectContaining({ message: { id: catalogue.notRecognized.id } }) },
    ]);
    expect(c.regions.sentence).toBe('listening');
  });

  it("a sentence open → waiting for words while the recognizer is connecting: the recognizer's backlog, 15 s for its words", () => {
    const c = drive();
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.regions).toMatchObject({ sentence: 'waiting', recognizer: 'connecting' });
    expect(c.state.sentences.closing?.deadline).toBe(1_000_000 + PENDING_RECOGNIZER_WAIT_MS);
  });

  it('avatar silent → speaking → silent: with no echo gate the threshold rises and falls with it; with the gate it stays', () => {
    const open = drive({ echoGated: false });
    expect(open.avatarIs('speaking').send({ type: 'avatarChanged', nlpReady: false })).toEqual([{ type: 'threshold', raised: true }]);
    expect(open.regions.avatar).toBe('speaking');
    expect(open.avatarIs('idle').send({ type: 'avatarChanged', nlpReady: false })).toEqual([{ type: 'threshold', raised: false }]);
    expect(open.regions.avatar).toBe('silent');
    const gated = drive({ echoGated: true });
    expect(gated.avatarIs('speaking').send({ type: 'avatarChanged', nlpReady: false })).toEqual([]);
    expect(gated.regions.avatar).toBe('speaking');
  });

  it('live → muted → live: the sentence in progress ends and detection pauses; unmuted, a silent microphone has NO_AUDIO_MS again', () => {
    const c = listening({ received: 0 });
    c.send({ type: 'speechStart' });
    expect(c.kinds(c.send({ type: 'muteToggled', muted: true, received: 0 }))).toEqual(['pauseFeed', 'muteDetector', 'log']);
    expect(c.effects.slice(0, 2)).toEqual([
      { type: 'pauseFeed', paused: true },
      { type: 'muteDetector', muted: true, why: 'mute' },
    ]);
    expect(c.regions).toMatchObject({ audio: 'muted', sentence: 'listening', speech: 'quiet' });
    expect(callView(c.state)).toEqual({ paused: false, muted: true, hearing: false });
    expect(c.state.audioCheckAt).toBeNull();
    c.after(10).send({ type: 'muteToggled', muted: false, received: 0 });
    expect(c.state.audioCheckAt).toBe(1_000_010 + NO_AUDIO_MS);
    expect(c.regions.audio).toBe('live');
  });

  it('live → paused by the system → muted: the recognizer closes and detections are ignored until the audio is back, muted if it was', () => {
    const c = drive();
    c.send(connected);
    expect(c.kinds(c.send({ type: 'audioLost', state: 'interrupted' }))).toEqual(['log', 'pauseFeed', 'muteDetector', 'closeRecognizer']);
    expect(c.regions).toMatchObject({ audio: 'paused', recognizer: 'closed' });
    expect(callView(c.state).paused).toBe(true);
    expect(c.send({ type: 'speechStart' })).toEqual([]);
    expect(c.regions.speech).toBe('quiet');
    expect(c.send({ type: 'langChosen', lang: 'jp' })).toEqual([]);
    const back = c.send({ type: 'audioBack', muted: true, received: 10 });
    expect(c.kinds(back)).toEqual(['log', 'pauseFeed', 'muteDetector', 'resumeAvatarVoice', 'openRecognizer']);
    expect(back).toContainEqual({ type: 'openRecognizer', lang: 'jp', silenceMs: CALL_START_SILENCE_MS });
    expect(c.state.lang).toBe('jp');
    expect(c.regions).toMatchObject({ audio: 'muted', recognizer: 'connecting' });
  });

  it('connected → restartDue → connecting: a failed recognizer opens again after 1, 2 and 4 s; one more failure ends the call (running → over)', () => {
    const c = drive();
    c.send(connected);
    for (const wait of RECOGNIZER_RESTART_DELAYS_MS) {
      c.send({ type: 'recognizerFailed', connectionLost: true, details: 'socket closed' });
      expect(c.regions.recognizer).toBe('restartDue');
      expect(c.state.recognizer.restartAt).toBe(1_000_000 + wait);
      expect(c.send({ type: 'restartDue' })).toEqual([{ type: 'openRecognizer', lang: 'en', silenceMs: CALL_START_SILENCE_MS }]);
      expect(c.regions.recognizer).toBe('connecting');
      c.send(connected);
    }
    const last = c.send({ type: 'recognizerFailed', connectionLost: true, details: 'socket closed' });
    expect(last.at(-1)).toEqual({ type: 'end', notice: { id: catalogue.speechUnreachable.id } });
    expect(c.regions.call).toBe('over');
  });

  it('connecting → restartDueConnecting → restartDue: a recognizer that fails while still connecting keeps the longer wait for the sentence it owes', () => {
    const c = drive();
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 0 });
    c.send({ type: 'recognizerFailed', connectionLost: true, details: 'connection failure' });
    expect(c.regions).toMatchObject({ recognizer: 'restartDueConnecting', sentence: 'listening' });
    c.send({ type: 'speechStart' });
    c.send({ type: 'speechEnd' });
    expect(c.state.sentences.closing?.deadline).toBe(1_000_000 + PENDING_RECOGNIZER_WAIT_MS);
    c.send(connected);
    expect(c.regions.recognizer).toBe('restartDue');
  });

  it('restartDue → connecting: a new language during the wait opens its recognizer at once, with its shorter silence, instead of the restart', () => {
    const c = drive();
    c.send(connected);
    c.send({ type: 'recognizerFailed', connectionLost: true, details: '' });
    expect(c.send({ type: 'langChosen', lang: 'jp' }).at(-1)).toEqual({ type: 'openRecognizer', lang: 'jp', silenceMs: LANG_CHANGE_SILENCE_MS });
    expect(c.state.recognizer.restartAt).toBeNull();
    expect(c.regions.recognizer).toBe('connecting');
  });

  it('restartDue → connecting → connected: a phrase recognized in between starts the count again', () => {
    const c = drive();
    c.send(connected);
    c.send({ type: 'recognizerFailed', connectionLost: true, details: '' });
    c.send({ type: 'restartDue' });
    c.send(connected);
    expect(c.regions.recognizer).toBe('connected');
    c.send(words('hello'));
    expect(c.state.recognizer.restarts).toBe(0);
  });

  it("detector loading, listening → a sentence open → listening by the recognizer's words; the avatar's echo opens none", () => {
    const c = drive({ avatarSpeaking: true });
    c.send(connected);
    expect(c.send({ type: 'recognizing', text: 'the weather' })).toEqual([]);
    c.send(words('the weather today is sunny'));
    expect(c.effects).toEqual([{ type: 'log', level: 'info', message: 'a phrase heard before voice detection was ready repeats the avatar: dropped as echo', data: { words: 5 } }]);
    expect(c.regions).toMatchObject({ detector: 'loading', sentence: 'listening', speech: 'quiet', avatar: 'speaking' });
    c.avatarIs('idle').send({ type: 'avatarChanged', nlpReady: false });
    c.after(ECHO_TAIL_MS).send(words('what about tomorrow'));
    expect(c.puts(c.effects)).toEqual([BREAK, sentenceRecognized({ msgId: 's1', text: 'what about tomorrow' })]);
    expect(c.regions).toMatchObject({ sentence: 'listening', speech: 'quiet' });
  });

  it('detector loading → on: a phrase spoken before the detector joined is still the recognizer\'s to mark', () => {
    const c = drive();
    c.send(connected);
    c.send({ type: 'detectorSettled', joined: true, receivedMs: 3000 });
    expect(c.regions.detector).toBe('on');
    expect(c.kinds(c.send(words('an early question', { atMs: 2000 })))).toEqual([`put:${BREAK.type}`, `put:${sentenceRecognized.type}`]);
    c.send(words('a later phrase', { atMs: 4000 }));
    expect(c.state.sentences.early).toHaveLength(1);
  });

  it('connected → connecting: a new language or a new network opens a new recognizer; the network one hears again what was not answered', () => {
    const c = drive();
    c.send(connected);
    expect(c.send({ type: 'langChosen', lang: 'kor' }).at(-1)).toEqual({ type: 'openRecognizer', lang: 'kor', silenceMs: LANG_CHANGE_SILENCE_MS });
    c.send(connected);
    c.send(words('hello', { receivedMs: 9000 }));
    const reopened = c.send({ type: 'networkChanged', receivedMs: 12_000 });
    expect(reopened.at(-1)).toEqual({ type: 'openRecognizer', lang: 'kor', silenceMs: CALL_START_SILENCE_MS, replayFromMs: 9000 - LANG_CHANGE_SILENCE_MS });
    expect(c.regions.recognizer).toBe('connecting');
  });

  it("running → over: the first recognizer's failure to connect is the account's speech settings; a silent microphone ends the call", () => {
    expect(drive().send({ type: 'recognizerSettled', ok: false, error: 'bad key' }).at(-1)).toEqual({ type: 'end', notice: { id: catalogue.asrConfigFailed.id } });
    const silent = drive({ received: 0 });
    expect(silent.state.audioCheckAt).toBe(1_000_000 + NO_AUDIO_MS);
    expect(silent.send({ type: 'audioCheckDue', received: 0 }).at(-1)).toMatchObject({ type: 'end' });
    expect(silent.regions.call).toBe('over');
    expect(drive({ received: 0 }).send({ type: 'audioCheckDue', received: 3 })).toEqual([]);
  });

  it("avatarVoice heard → held → heard: the visitor's onset holds the avatar's voice until its next reply; hanging up sends what is complete", () => {
    const c = listening({ avatarSpeaking: true });
    expect(c.send({ type: 'speechStart' })).toContainEqual({ type: 'holdAvatar', held: true });
    expect(c.regions.avatarVoice).toBe('held');
    // Not its next reply: the old one's commands leave the voice held.
    expect(c.avatarIs('speaking').send({ type: 'avatarChanged', nlpReady: false })).not.toContainEqual({ type: 'holdAvatar', held: false });
    expect(c.avatarIs('thinking').send({ type: 'avatarChanged', nlpReady: true })).toContainEqual({ type: 'holdAvatar', held: false });
    expect(c.regions.avatarVoice).toBe('heard');
    c.avatarIs('idle').send(words('good night'));
    const ended = c.send({ type: 'hangUp' });
    expect(c.kinds(ended)).toEqual([`put:${sentenceRecognized.type}`, 'end']);
    expect(ended.at(-1)).toEqual({ type: 'end', notice: null });
    expect(c.send({ type: 'callOver' })).toEqual([]);
  });

  it('held → heard as the call ends, however it ends', () => {
    const c = listening({ avatarSpeaking: true });
    c.send({ type: 'speechStart' });
    expect(c.send({ type: 'callOver' })).toEqual([{ type: 'holdAvatar', held: false }]);
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
