/**
 * What a hands-free call knows (callMachine.ts moves it from one state to the next): the
 * rules' figures, the state, and the names it answers to. Each figure's reason and
 * measurement are in docs/decisions.md; src/features/voice/README.md has the table of states.
 */
import type { Lang } from '../../locale/localeSlice.ts';
import type { SentenceOutput, SentenceState } from '../sentences.ts';


export const CALL_START_SILENCE_MS = 1000;
export const LANG_CHANGE_SILENCE_MS = 500;
/** How long a sentence the VAD has ended waits for the recognizer's final phrase. */
export const SENTENCE_FINAL_WAIT_MS = 1500;
/** How long a phrase heard before its sentence started (a VAD running late) may wait for it. */
export const EARLY_PHRASE_MS = 2000;
export const TIMING = { waitMs: SENTENCE_FINAL_WAIT_MS, earlyMs: EARLY_PHRASE_MS };
/**
 * The recognizer's backlog (docs/decisions.md, "The recognizer's backlog"): a sentence the
 * VAD ends while the recognizer is still connecting waits this long for its words, and once
 * it connects with a backlog of CATCH_UP_BACKLOG_CHUNKS or more, RECOGNIZER_CATCH_UP_MS more.
 */
export const PENDING_RECOGNIZER_WAIT_MS = 15_000;
export const RECOGNIZER_CATCH_UP_MS = SENTENCE_FINAL_WAIT_MS * 2;
/** A backlog of about a second (96 ms chunks) or more is worth the catch-up wait. */
export const CATCH_UP_BACKLOG_CHUNKS = 10;
/** A failed recognizer is opened again after these waits, one per failure in a row. */
export const RECOGNIZER_RESTART_DELAYS_MS = [1000, 2000, 4000] as const;
export const MAX_RECOGNIZER_RESTARTS = RECOGNIZER_RESTART_DELAYS_MS.length;
/**
 * With the echo gate on, a phrase the recognizer finishes outside any sentence up to this
 * long after the avatar stopped is its echo's tail (the recognizer ends a phrase after its
 * segmentation silence, 1 s in a call, plus the service's latency).
 */
export const ECHO_TAIL_MS = 2500;

/** The names a call's state answers to (README's table); several can hold at once. */
export type CallStateName =
  | 'listening'
  | 'a sentence open'
  | 'waiting for words'
  | 'the avatar speaking'
  | 'muted'
  | 'paused by the system'
  | 'reconnecting';

export interface CallState {
  readonly lang: Lang;
  /** listening (nothing open), a sentence open, or waiting for words (closing). */
  readonly sentences: SentenceState;
  /** The sentence machine's outputs not carried out yet (they go at the end of a wake-up). */
  readonly outputs: readonly SentenceOutput[];
  /** live; muted by the visitor; or away: another app (an iOS call, Siri) has the page's audio. */
  readonly audio: 'live' | 'muted' | 'away';
  readonly recognizer: {
    /** connecting (opened, its connection not settled yet), connected, or closed (none: it could not connect, or the call is paused). */
    readonly status: 'connecting' | 'connected' | 'closed';
    /** Failures in a row with no phrase recognized since. */
    readonly restarts: number;
    /** When a failed recognizer opens again (the call is reconnecting until then). */
    readonly restartAt: number | null;
    /** One of this call's recognizers has connected: a later one that cannot met the network, not bad settings. */
    readonly worked: boolean;
    /** Until when a recognizer that connected with a backlog may still be working through it. */
    readonly catchUpUntil: number;
    /** Where on the feed's clock the last final phrase had surely ended. */
    readonly answeredToMs: number;
  };
  readonly detector: {
    /** loading (the recognizer marks the sentences meanwhile), on, or off (it never will). */
    readonly status: 'loading' | 'on' | 'off';
    /** Where on the feed's clock it began to hear the call. */
    readonly fromMs: number | null;
    /** The sentence the recognizer opened (its msgId), until its final phrase. */
    readonly byRecognizer: string | null;
  };
  readonly avatar: {
    /** Whether it was speaking at the last look, and when it last was (0: never). */
    readonly speaking: boolean;
    readonly spokeAt: number;
    /** Its voice is held in the page, from the visitor's onset to its next reply. */
    readonly held: boolean;
    /** Whether the echo gate has its current audio to compare with. */
    readonly gated: boolean;
    /** Whether the VAD's threshold is raised (only without the gate, while it speaks). */
    readonly raised: boolean;
  };
  /** When to check that the microphone has given any audio (null: it has, or it is muted). */
  readonly audioCheckAt: number | null;
}


export function callStates(s: CallState): CallStateName[] {
  const names: CallStateName[] = [];
  if (s.audio === 'away') names.push('paused by the system');
  if (s.audio === 'muted') names.push('muted');
  if (s.recognizer.restartAt !== null) names.push('reconnecting');
  if (s.sentences.closing) names.push('waiting for words');
  if (s.sentences.open) names.push('a sentence open');
  if (!s.sentences.open && !s.sentences.closing && s.audio === 'live') names.push('listening');
  if (s.avatar.speaking) names.push('the avatar speaking');
  return names;
}

/** Whether a phrase heard outside any sentence now is the avatar's echo: the gate is on and the avatar speaks, or spoke within ECHO_TAIL_MS. */
export function avatarEchoes(s: CallState, now: number): boolean {
  // A stray phrase comes out EARLY_PHRASE_MS after the recognizer finished it: judged at that moment.
  return s.avatar.gated && (s.avatar.speaking || now - EARLY_PHRASE_MS - s.avatar.spokeAt < ECHO_TAIL_MS);
}
