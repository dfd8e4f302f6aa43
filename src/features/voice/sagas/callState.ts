/**
 * What a hands-free call knows (callMachine.ts moves it from one state to the next): the
 * rules' figures, the regions' named states, the events the call answers, and the effects it
 * asks for. Each figure's reason and measurement are in docs/decisions.md;
 * src/features/voice/README.md has the regions and their states as a table.
 */
import type { Action } from '@reduxjs/toolkit';
import type { Lang } from '../../locale/localeSlice.ts';
import type { NoticeMessage } from '../../notices/noticesSlice.ts';
import type { SentenceState } from '../sentences.ts';
import type { CallView, VoiceState } from '../voiceSlice.ts';
import type { MicErrorKind } from '../services/pipeline.ts';

export { ECHO_TAIL_MS } from '../echo.ts';

export const CALL_START_SILENCE_MS = 1000;
export const LANG_CHANGE_SILENCE_MS = 500;
/** How long a sentence the VAD has ended waits for the recognizer's final phrase. */
export const SENTENCE_FINAL_WAIT_MS = 1500;
/** How long a phrase heard before its sentence started (a VAD running late) may wait for it. */
export const EARLY_PHRASE_MS = 2000;
/**
 * How long after voice detection ended a sentence the visitor may still go on with it, and a
 * sentence whose words left it open waits for them (D8): a pause of up to about 2 s between
 * words, and "where is the" said alone still goes within 3 s of its last word (768 ms + this).
 */
export const TURN_RESUME_MS = 1500;
export const TIMING = { waitMs: SENTENCE_FINAL_WAIT_MS, earlyMs: EARLY_PHRASE_MS, resumeMs: TURN_RESUME_MS };
/**
 * The recognizer's backlog (docs/decisions.md, "The recognizer's backlog"): a sentence the
 * VAD ends while the recognizer is still connecting waits this long for its words, and once
 * it connects with a backlog of CATCH_UP_BACKLOG_CHUNKS or more, RECOGNIZER_CATCH_UP_MS more.
 */
export const PENDING_RECOGNIZER_WAIT_MS = 15_000;
export const PENDING_TIMING = { ...TIMING, waitMs: PENDING_RECOGNIZER_WAIT_MS };
export const RECOGNIZER_CATCH_UP_MS = SENTENCE_FINAL_WAIT_MS * 2;
/** A backlog of about a second (96 ms chunks) or more is worth the catch-up wait. */
export const CATCH_UP_BACKLOG_CHUNKS = 10;
/** A failed recognizer is opened again after these waits, one per failure in a row. */
export const RECOGNIZER_RESTART_DELAYS_MS = [1000, 2000, 4000] as const;
export const MAX_RECOGNIZER_RESTARTS = RECOGNIZER_RESTART_DELAYS_MS.length;

/**
 * The call's parallel regions and their named states (README's table says what each means,
 * and where it is entered and left). Every region is in exactly one of its states at a time.
 */
export interface CallRegions {
  /** The call as a whole: running until it ends (hang-up or a failure). */
  readonly call: 'running' | 'over';
  /** The microphone: live; muted by the visitor; or paused, another app (an iOS call, Siri) having the page's audio. */
  readonly audio: 'live' | 'muted' | 'paused';
  /**
   * The recognizer: one opening (connecting), connected, none (closed: paused, or it could not
   * connect), or a failed one waiting for its restart (restartDue), in `restartDueConnecting`
   * while an open that failed may still settle (its sentences keep the longer wait).
   */
  readonly recognizer: 'connecting' | 'connected' | 'closed' | 'restartDue' | 'restartDueConnecting';
  /** Voice detection: loading (the recognizer marks the sentences meanwhile), on, or off (it never will). */
  readonly detector: 'loading' | 'on' | 'off';
  /** Whether the visitor is heard speaking now (by voice detection, or by the recognizer standing in for it). */
  readonly speech: 'quiet' | 'heard';
  /** The sentences (sentences.ts): none open (listening), one open, one waiting for its words, or one open while another waits. */
  readonly sentence: 'listening' | 'open' | 'waiting' | 'openWhileWaiting';
  /** The avatar as last looked at after an event: speaking or silent. */
  readonly avatar: 'silent' | 'speaking';
  /** The avatar's voice in the page: heard, or held from the visitor's onset until its next reply. */
  readonly avatarVoice: 'heard' | 'held';
}

export interface CallState {
  readonly regions: CallRegions;
  readonly lang: Lang;
  readonly sentences: SentenceState;
  readonly recognizer: {
    /** Failures in a row with no phrase recognized since. */
    readonly restarts: number;
    /** When a failed recognizer opens again (in restartDue and restartDueConnecting). */
    readonly restartAt: number | null;
    /** One of this call's recognizers has connected: a later one that cannot met the network, not bad settings. */
    readonly worked: boolean;
    /** Until when a recognizer that connected with a backlog may still be working through it. */
    readonly catchUpUntil: number;
    /** Where on the feed's clock the last final phrase had surely ended. */
    readonly answeredToMs: number;
  };
  readonly detector: {
    /** Where on the feed's clock it began to hear the call. */
    readonly fromMs: number | null;
    /** The sentence the recognizer opened (its msgId), until its final phrase. */
    readonly byRecognizer: string | null;
  };
  readonly avatar: {
    /** When it last was speaking (0: never). */
    readonly spokeAt: number;
    /** Whether the echo gate has its current audio to compare with. */
    readonly gated: boolean;
    /** Whether the VAD's threshold is raised (only without the gate, while it speaks). */
    readonly raised: boolean;
  };
  /** When to check that the microphone has given any audio (null: it has, or it is muted). */
  readonly audioCheckAt: number | null;
}

export type CallEvent =
  /** Voice detection heard a sentence start or end, or a sound too short to be one. */
  | { type: 'speechStart' | 'speechEnd' | 'misfire' }
  /** The current recognizer's words, `atMs` where they began on the feed's clock. */
  | { type: 'recognizing'; text: string; atMs?: number }
  /** Its final phrase; `receivedMs` the feed's clock now. */
  | { type: 'recognized'; text: string; atMs?: number; receivedMs: number }
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
  /** The avatar's activity changed (a command, or a break); `nlpReady`: its next reply began. */
  | { type: 'avatarChanged'; nlpReady: boolean }
  | { type: 'hangUp' }
  /** The saga ends, however it ends (hung up, failed, cancelled): the avatar is heard again. */
  | { type: 'callOver' };

/** Raised by the machine itself while it handles an event (statecharts' internal events). */
export type InternalEvent =
  /** The recognizer opened (start) or closed (end) a sentence in the detector's place. */
  | { type: 'marked'; mark: 'start' | 'end' }
  /** A sentence's start interrupts the avatar. */
  | { type: 'interrupted' }
  /** After every event: whether the avatar speaks now, the event's own breaks counted. */
  | { type: 'looked'; speaking: boolean };

export type CallEffect =
  /** A store action: the visitor's messages and partial words, breaks, toasts. */
  | { type: 'put'; action: Action }
  | { type: 'openRecognizer'; lang: Lang; silenceMs: number; replayFromMs?: number }
  | { type: 'closeRecognizer' }
  | { type: 'pauseFeed'; paused: boolean }
  /** Voice detection (and capture) paused or resumed: for mute, or for another app taking the audio and giving it back. */
  | { type: 'muteDetector'; muted: boolean; why: 'mute' | 'pause' | 'resume' }
  | { type: 'threshold'; raised: boolean }
  | { type: 'holdAvatar'; held: boolean }
  | { type: 'resumeAvatarVoice' }
  | { type: 'log'; level: 'debug' | 'info' | 'warn'; message: string; data?: unknown }
  /** The call is over (after the effects before it); with a notice to show, or none (hung up). */
  | { type: 'end'; notice: NoticeMessage | null };

/** What the machine reads of the world with each event (the saga reads it as the event comes). */
export interface CallEnv {
  now: number;
  newId: () => string;
  /** The store's voice slice: the avatar's activity and reply (breaks and sentences the event sends change it as the store would). */
  voice: VoiceState;
  /** The avatar's last replies, for the echo rule (echo.ts). */
  avatarSaid: readonly string[];
}

/** What the voice status line shows of the call (voiceSlice.ts `callMoved`), derived from the regions here only; the saga puts it whenever it changes. */
export function callView(s: CallState): CallView {
  return { paused: s.regions.audio === 'paused', muted: s.regions.audio === 'muted', hearing: s.regions.speech === 'heard' };
}

/** The sentence region's state, named from what sentences.ts holds. */
export function sentenceStateOf(sentences: SentenceState): CallRegions['sentence'] {
  if (sentences.open) return sentences.closing ? 'openWhileWaiting' : 'open';
  return sentences.closing ? 'waiting' : 'listening';
}
