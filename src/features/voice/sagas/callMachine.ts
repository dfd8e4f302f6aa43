/**
 * A hands-free call as a state machine: what the call knows (CallState, immutable), and one
 * pure transition, `next(state, event, env)`, that returns the next state and what to do
 * (CallEffect, data). The saga in conversation.ts feeds it the events (the microphone's
 * voice detection, the recognizer, the visitor's controls, the avatar, the clock) and
 * carries out the effects; nothing here touches a service, the store or the clock.
 *
 * The call's named states (src/features/voice/README.md has them as a table) are read off
 * the state by callStates(): listening, a sentence open, waiting for words, the avatar
 * speaking, muted, paused by the system, reconnecting.
 */
import type { Action } from '@reduxjs/toolkit';
import type { Lang } from '../../locale/localeSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import type { NoticeMessage } from '../../notices/noticesSlice.ts';
import { isEchoOf, wordsOf } from '../echo.ts';
import { REPLAY_KEEP_MS } from '../pcmFeed.ts';
import {
  initialSentenceState,
  stepSentences,
  waitFrom,
  type SentenceEvent,
  type SentenceOutput,
} from '../sentences.ts';
import { callAudioBack, callAudioLost, vadSpeechEnded, vadSpeechStarted } from '../voiceSlice.ts';
import type { MicErrorKind } from '../services/pipeline.ts';
import { NO_AUDIO_MS, noAudioNotice, recognitionFailureNotice } from './resources.ts';
import {
  CALL_START_SILENCE_MS,
  CATCH_UP_BACKLOG_CHUNKS,
  ECHO_TAIL_MS,
  LANG_CHANGE_SILENCE_MS,
  PENDING_RECOGNIZER_WAIT_MS,
  RECOGNIZER_CATCH_UP_MS,
  RECOGNIZER_RESTART_DELAYS_MS,
  TIMING,
  type CallState,
} from './callState.ts';

const PENDING_TIMING = { ...TIMING, waitMs: PENDING_RECOGNIZER_WAIT_MS };

export type CallEvent =
  /** Voice detection heard a sentence start or end, or a sound too short to be one. */
  | { type: 'speechStart' | 'speechEnd' | 'misfire' }
  /** The current recognizer's words, `atMs` where they began on the feed's clock. */
  | { type: 'recognizing'; text: string; atMs?: number }
  /** Its final phrase; `receivedMs` the feed's clock now, `avatarTexts` the avatar's last replies (is the phrase their echo?). */
  | { type: 'recognized'; text: string; atMs?: number; receivedMs: number; avatarTexts: readonly string[] }
  | { type: 'recognizerFailed'; connectionLost: boolean; details: string }
  /** The recognizer being opened connected (`backlog`: chunks handed to it) or could not. */
  | { type: 'recognizerSettled'; ok: true; backlog: number }
  | { type: 'recognizerSettled'; ok: false; error: string }
  | { type: 'restartDue' }
  | { type: 'audioCheckDue'; received: number }
  | { type: 'detectorSettled'; joined: boolean; receivedMs: number }
  | { type: 'micError'; kind: MicErrorKind; message: string }
  | { type: 'audioLost'; state: string }
  | { type: 'audioBack'; muted: boolean; received: number }
  | { type: 'muteToggled'; muted: boolean; received: number }
  | { type: 'langChosen'; lang: Lang }
  /** The signaling channel resumed on a new socket: the network changed. */
  | { type: 'networkChanged'; receivedMs: number }
  /** The echo gate was given the avatar's new stream (a media reconnect). */
  | { type: 'gateMoved'; gated: boolean; speaking: boolean }
  | { type: 'tick' }
  /** The visitor's onset interrupted a speaking avatar: hold its voice. */
  | { type: 'hold' }
  /** Its next reply (nlp_ready), or the call's end: the avatar is heard again. */
  | { type: 'release' }
  /** The end of a wake-up: the outputs go, then the avatar's activity is looked at. */
  | { type: 'wakeEnded' }
  | { type: 'avatarLooked'; speaking: boolean }
  | { type: 'hangUp' };

export type CallEffect =
  /** Carry out the sentence machine's outputs (messages, breaks, partials, toasts, stray phrases). */
  | { type: 'act'; outputs: SentenceOutput[]; lang: Lang }
  | { type: 'put'; action: Action }
  | { type: 'openRecognizer'; silenceMs: number; replayFromMs?: number }
  | { type: 'closeRecognizer' }
  | { type: 'pauseFeed'; paused: boolean }
  /** Voice detection (and capture) paused or resumed: for mute, or for another app taking the audio and giving it back. */
  | { type: 'muteDetector'; muted: boolean; why: 'mute' | 'pause' | 'resume' }
  | { type: 'threshold'; raised: boolean }
  | { type: 'holdAvatar'; held: boolean }
  | { type: 'resumeAvatarVoice' }
  | { type: 'log'; level: 'info' | 'warn'; message: string; data?: unknown }
  /** The call is over (after the effects before it); with a notice to show, or none (hung up). */
  | { type: 'end'; notice: NoticeMessage | null };

export interface CallEnv {
  now: number;
  newId: () => string;
}

export interface CallStart {
  lang: Lang;
  avatarSpeaking: boolean;
  echoGated: boolean;
  /** PCM chunks the feed has received already. */
  received: number;
  now: number;
}

/** The call as it starts, with its first recognizer opening. */
export function startCall({ lang, avatarSpeaking, echoGated, received, now }: CallStart): [CallState, CallEffect[]] {
  const state: CallState = {
    lang,
    sentences: initialSentenceState,
    outputs: [],
    audio: 'live',
    recognizer: { status: 'connecting', restarts: 0, restartAt: null, worked: false, catchUpUntil: 0, answeredToMs: 0 },
    detector: { status: 'loading', fromMs: null, byRecognizer: null },
    avatar: { speaking: avatarSpeaking, spokeAt: avatarSpeaking ? now : 0, held: false, gated: echoGated, raised: avatarSpeaking && !echoGated },
    audioCheckAt: received === 0 ? now + NO_AUDIO_MS : null,
  };
  return [state, [{ type: 'openRecognizer', silenceMs: CALL_START_SILENCE_MS }]];
}

/** Collects a transition's state and effects. */
class Step {
  readonly effects: CallEffect[] = [];
  constructor(
    public s: CallState,
    readonly env: CallEnv,
  ) {}
  set(change: Partial<CallState>) {
    this.s = { ...this.s, ...change };
  }
  recognizer(change: Partial<CallState['recognizer']>) {
    this.set({ recognizer: { ...this.s.recognizer, ...change } });
  }
  detector(change: Partial<CallState['detector']>) {
    this.set({ detector: { ...this.s.detector, ...change } });
  }
  avatar(change: Partial<CallState['avatar']>) {
    this.set({ avatar: { ...this.s.avatar, ...change } });
  }
  do(...effects: CallEffect[]) {
    this.effects.push(...effects);
  }
  log(level: 'info' | 'warn', message: string, data?: unknown) {
    this.do(data === undefined ? { type: 'log', level, message } : { type: 'log', level, message, data });
  }
  /** A sentence event; a sentence that ends while the recognizer works through its backlog waits for the catch-up. */
  sentence(event: SentenceEvent) {
    const { now } = this.env;
    const result = stepSentences(this.s.sentences, event, now, this.s.recognizer.status === 'connecting' ? PENDING_TIMING : TIMING);
    const closing = result.state.closing;
    const catchUpUntil = this.s.recognizer.catchUpUntil;
    const sentences = closing && closing.deadline < catchUpUntil ? waitFrom(result.state, now, catchUpUntil - now) : result.state;
    this.set({ sentences, outputs: [...this.s.outputs, ...result.outputs] });
  }
  /** The outputs so far go now. */
  act() {
    if (this.s.outputs.length > 0) this.do({ type: 'act', outputs: [...this.s.outputs], lang: this.s.lang });
    this.set({ outputs: [] });
  }
  /** Ends the sentence in progress and carries out what is complete. */
  flush() {
    this.sentence({ type: 'flush' });
    this.act();
  }
  end(notice: NoticeMessage | null) {
    this.flush();
    this.do({ type: 'end', notice });
  }
  open(silenceMs: number, replayFromMs?: number) {
    this.recognizer({ status: 'connecting', restartAt: null });
    this.do(replayFromMs === undefined ? { type: 'openRecognizer', silenceMs } : { type: 'openRecognizer', silenceMs, replayFromMs });
  }
  /** Sets the threshold the avatar's voice calls for: raised while it speaks with no echo gate to keep its echo out. */
  threshold(speaking: boolean) {
    const raise = !this.s.avatar.gated && speaking;
    if (raise === this.s.avatar.raised) return;
    this.avatar({ raised: raise });
    this.do({ type: 'threshold', raised: raise });
  }
  /** NO_AUDIO_MS from now, unless the microphone has given audio or is muted on purpose. */
  armAudioCheck(muted: boolean, received: number) {
    this.set({ audioCheckAt: muted || received > 0 ? null : this.env.now + NO_AUDIO_MS });
  }
  /** A recognizer failed: it opens again after a wait, or the call is over. */
  recognizerFailed(connectionLost: boolean) {
    this.sentence({ type: 'flush' });
    const wait = RECOGNIZER_RESTART_DELAYS_MS[this.s.recognizer.restarts];
    if (wait === undefined) return this.end(recognitionFailureNotice(connectionLost));
    // An open still in flight stays connecting (its sentences keep the longer wait) until the restart replaces it.
    this.recognizer({ restarts: this.s.recognizer.restarts + 1, restartAt: this.env.now + wait });
  }
}

/** The call's next state, and what to do, after `event`. */
export function next(state: CallState, event: CallEvent, env: CallEnv): [CallState, CallEffect[]] {
  const t = new Step(state, env);
  transition(t, event);
  return [t.s, t.effects];
}

function transition(t: Step, event: CallEvent): void {
  const { s, env } = t;
  const away = s.audio === 'away';
  switch (event.type) {
    case 'speechStart':
    case 'speechEnd':
    case 'misfire':
      // Paused, a detection still on its way from before the pause is not the visitor.
      if (away) return;
      if (event.type === 'speechStart') {
        t.sentence({ type: 'speechStart', msgId: env.newId() });
        t.do({ type: 'put', action: vadSpeechStarted() });
      } else {
        t.sentence({ type: event.type });
        t.do({ type: 'put', action: vadSpeechEnded() });
      }
      return;
    case 'recognizing':
    case 'recognized':
      if (event.type === 'recognized') {
        // A phrase recognized: the service works, and the failures in a row start again from none.
        t.recognizer({ restarts: 0, answeredToMs: Math.max(s.recognizer.answeredToMs, event.receivedMs - LANG_CHANGE_SILENCE_MS) });
      }
      if (recognizerMarks(t, event.atMs)) markByRecognizer(t, event);
      else t.sentence({ type: event.type, text: event.text });
      return;
    case 'recognizerFailed':
      t.log('warn', 'recognition failed during the call', { details: event.details, connectionLost: event.connectionLost, restarts: s.recognizer.restarts });
      return t.recognizerFailed(event.connectionLost);
    case 'recognizerSettled':
      if (event.ok) {
        t.recognizer({ status: 'connected', worked: true });
        if (event.backlog >= CATCH_UP_BACKLOG_CHUNKS) {
          t.recognizer({ catchUpUntil: env.now + RECOGNIZER_CATCH_UP_MS });
          t.set({ sentences: waitFrom(t.s.sentences, env.now, RECOGNIZER_CATCH_UP_MS) });
        }
        return;
      }
      t.recognizer({ status: 'closed' });
      t.log('warn', 'recognition could not start', { error: event.error, restarts: s.recognizer.restarts });
      // The call's first recognizer: its settings. A later one (a restart, a new language, a new network): the connection.
      if (!s.recognizer.worked) return t.end({ id: catalogue.asrConfigFailed.id });
      return t.recognizerFailed(true);
    case 'restartDue':
      return t.open(CALL_START_SILENCE_MS);
    case 'audioCheckDue':
      t.set({ audioCheckAt: null });
      if (event.received > 0) return;
      t.log('warn', 'the microphone opened but gave no audio: the call ends', { waitedMs: NO_AUDIO_MS });
      return t.end(noAudioNotice());
    case 'detectorSettled':
      if (event.joined) {
        t.detector({ status: 'on', fromMs: event.receivedMs });
        t.log('info', 'voice detection hears the call; it marks the sentences from now on');
      } else {
        t.detector({ status: 'off' });
        t.log('warn', 'voice detection will not join the call');
      }
      return;
    case 'micError':
      t.log('warn', 'the microphone failed during the call', { type: 'micError', kind: event.kind, message: event.message });
      // Gone with none to open again (unplugged, taken, revoked) says so; a broken detector is the media error.
      return t.end({ id: event.kind === 'unavailable' ? catalogue.micLost.id : catalogue.mediaAccessFailed.id });
    case 'audioLost':
      if (away) return;
      t.log('warn', 'another app took the audio: the call pauses', { state: event.state });
      t.flush();
      t.set({ audio: 'away', audioCheckAt: null });
      t.recognizer({ status: 'closed', restartAt: null });
      t.do(
        { type: 'closeRecognizer' },
        { type: 'pauseFeed', paused: true },
        { type: 'put', action: vadSpeechEnded() },
        { type: 'put', action: callAudioLost() },
        { type: 'muteDetector', muted: true, why: 'pause' },
      );
      return;
    case 'audioBack':
      if (!away) return;
      t.log('info', 'the audio is back: the call listens again', { muted: event.muted });
      t.set({ audio: event.muted ? 'muted' : 'live' });
      t.armAudioCheck(event.muted, event.received);
      t.do({ type: 'pauseFeed', paused: event.muted }, { type: 'muteDetector', muted: event.muted, why: 'resume' });
      t.open(CALL_START_SILENCE_MS);
      t.do({ type: 'resumeAvatarVoice' }, { type: 'put', action: callAudioBack() });
      return;
    case 'muteToggled':
      if (away) return;
      t.set({ audio: event.muted ? 'muted' : 'live' });
      t.do({ type: 'pauseFeed', paused: event.muted });
      // Muted, the microphone gives nothing on purpose; unmuted, it has NO_AUDIO_MS again.
      t.armAudioCheck(event.muted, event.received);
      if (event.muted) {
        t.sentence({ type: 'flush' });
        t.do({ type: 'put', action: vadSpeechEnded() });
      }
      t.do({ type: 'muteDetector', muted: event.muted, why: 'mute' });
      return;
    case 'langChosen':
      if (event.lang === s.lang) return;
      t.flush();
      t.set({ lang: event.lang });
      // Paused, the new language waits for the audio to come back. A restart waiting after a
      // failure is replaced by this recognizer, which keeps the language change's shorter silence.
      if (!away) t.open(LANG_CHANGE_SILENCE_MS);
      return;
    case 'networkChanged': {
      // The recognizer's socket ran over the old path too: a new one hears again what the old
      // one had not answered (from its last final phrase, REPLAY_KEEP_MS at most).
      if (away) return;
      const replayFromMs = Math.max(s.recognizer.answeredToMs, event.receivedMs - REPLAY_KEEP_MS);
      t.log('info', 'the network changed: a new recognizer hears the call', { replayMs: Math.round(event.receivedMs - replayFromMs) });
      return t.open(CALL_START_SILENCE_MS, replayFromMs);
    }
    case 'gateMoved':
      t.log('info', "the echo gate follows the avatar's new stream", { gated: event.gated, was: s.avatar.gated });
      t.avatar({ gated: event.gated });
      return t.threshold(event.speaking);
    case 'tick':
      return t.sentence({ type: 'tick' });
    case 'hold':
      if (s.avatar.held) return;
      t.avatar({ held: true });
      return t.do({ type: 'holdAvatar', held: true });
    case 'release':
      if (!s.avatar.held) return;
      t.avatar({ held: false });
      return t.do({ type: 'holdAvatar', held: false });
    case 'wakeEnded':
      return t.act();
    case 'avatarLooked':
      t.avatar({ speaking: event.speaking, spokeAt: s.avatar.speaking ? env.now : s.avatar.spokeAt });
      // With the echo gate the VAD keeps its normal threshold: a raised one would only make the visitor harder to hear.
      return t.threshold(event.speaking);
    case 'hangUp':
      // What is complete still goes; recognition stops with the call.
      return t.end(null);
  }
}

/**
 * Whether the recognizer marks this phrase rather than voice detection: while the detector
 * loads, for a sentence the recognizer opened, and for a phrase spoken before the detector
 * began to hear the call (a recognizer running behind can finish one long after).
 */
function recognizerMarks(t: Step, atMs: number | undefined): boolean {
  const { sentences, detector } = t.s;
  const mine = detector.byRecognizer;
  if (mine !== null && sentences.open?.msgId !== mine && sentences.closing?.msgId !== mine) t.detector({ byRecognizer: null });
  const beforeDetector = atMs !== undefined && detector.fromMs !== null && atMs < detector.fromMs;
  return detector.status === 'loading' || t.s.detector.byRecognizer !== null || beforeDetector;
}

/**
 * The recognizer marks the sentences (the detector hand-over): its first words start one,
 * interrupting the avatar, and its final phrase ends it. Over the avatar's voice (and for
 * ECHO_TAIL_MS after) only a final phrase that is not the avatar's own words starts one.
 */
function markByRecognizer(t: Step, event: Extract<CallEvent, { type: 'recognizing' | 'recognized' }>) {
  const { env } = t;
  const { open, closing } = t.s.sentences;
  if (!open && !closing) {
    const { speaking, spokeAt } = t.s.avatar;
    if (speaking || env.now - spokeAt < ECHO_TAIL_MS) {
      if (event.type === 'recognizing') return;
      if (isEchoOf(event.text, event.avatarTexts)) {
        t.log('info', 'a phrase heard before voice detection was ready repeats the avatar: dropped as echo', { words: wordsOf(event.text).length });
        return;
      }
    }
    const msgId = env.newId();
    t.detector({ byRecognizer: msgId });
    t.sentence({ type: 'speechStart', msgId });
    t.do({ type: 'put', action: vadSpeechStarted() });
  }
  t.sentence({ type: event.type, text: event.text });
  if (event.type === 'recognized' && t.s.detector.byRecognizer !== null && t.s.sentences.open?.msgId === t.s.detector.byRecognizer) {
    t.detector({ byRecognizer: null });
    t.sentence({ type: 'speechEnd' });
    t.do({ type: 'put', action: vadSpeechEnded() });
  }
}
