/**
 * Call mode's sentences (docs/requirements.md R60): voice detection (VAD) starts a sentence and
 * ends it; recognition runs continuously beside it. A sentence is the recognizer's
 * final phrases that arrive while it is open, or shortly after it closed.
 *
 * Why the wait: the VAD ends a sentence after ~0.8 s of quiet, the recognizer finalises
 * after its segmentation silence (1 s at call start) plus decoding, so the final phrase
 * usually arrives after the VAD's end. A closed sentence that is still owed a phrase
 * waits for it up to `waitMs`; one whose phrase already came (the recognizer was
 * quicker, e.g. 500 ms segmentation after a language change) is sent at once.
 *
 * A phrase that arrives with no sentence open or waiting is kept briefly (`earlyMs`):
 * when the VAD runs behind the audio (a slow phone working through the frames queued
 * while its model loaded, at call start), the recognizer can finalise words before the
 * VAD reports the speech they came from. If a sentence starts within that time the
 * phrase is its first; otherwise it is output as `stray`, and the saga decides: the
 * visitor talking over the avatar (whom the VAD, made hard of hearing while the avatar
 * speaks, can miss) is sent, the avatar's own voice leaking past echo cancellation is
 * not (features/voice/echo.ts).
 *
 * Pure and synchronous: the saga feeds events and the clock, and acts on the outputs.
 */
import { LANGUAGES } from '../../../lang/languages.ts';

export interface Sentence {
  msgId: string;
  phrases: string[];
  /** No final phrase has arrived since the VAD heard this sentence start. */
  owed: boolean;
}

export interface SentenceState {
  /** The sentence the VAD is in now. */
  open: Sentence | null;
  /** A sentence the VAD has ended, waiting for its final phrase until `deadline`. */
  closing: (Sentence & { deadline: number }) | null;
  /** The recognizer reported words it has not finalised yet. */
  partialPending: boolean;
  /** Phrases heard with no sentence open, and when; see `earlyMs`. */
  early: { text: string; at: number }[];
}

export interface SentenceTiming {
  /** How long a sentence the VAD has ended waits for a final phrase it is owed. */
  waitMs: number;
  /** How long a phrase heard outside any sentence may still become the next sentence's first. */
  earlyMs: number;
}

export type SentenceEvent =
  | { type: 'speechStart'; msgId: string }
  | { type: 'speechEnd' }
  | { type: 'misfire' }
  | { type: 'recognizing'; text: string }
  | { type: 'recognized'; text: string }
  /** The clock moved (the saga's timer for nextDeadline() fired). */
  | { type: 'tick' }
  /** Recognition stops or restarts (mute, language change, hang-up): finish now. */
  | { type: 'flush' };

export type SentenceOutput =
  /** A sentence started: interrupt the avatar. */
  | { type: 'interrupt'; msgId: string }
  | { type: 'partial'; msgId: string; text: string }
  | { type: 'complete'; msgId: string; phrases: string[] }
  | { type: 'discarded'; msgId: string; reason: DiscardReason }
  | { type: 'stray'; text: string };

/**
 * Why a sentence went without words: the VAD heard speech end and no words came within
 * the wait ('nothing recognized'); the VAD took back a too-short sound ('misfire'); or
 * recognition stopped under it (mute, hang-up, a language change, a failure: 'cut short').
 */
export type DiscardReason = 'nothing recognized' | 'misfire' | 'cut short';

export interface StepResult {
  state: SentenceState;
  outputs: SentenceOutput[];
}

export const initialSentenceState: SentenceState = { open: null, closing: null, partialPending: false, early: [] };

/** When the saga must send a tick: a waiting sentence's deadline or an early phrase's expiry. */
export function nextDeadline(state: SentenceState, timing: SentenceTiming): number | null {
  const times = state.early.map((p) => p.at + timing.earlyMs);
  if (state.closing) times.push(state.closing.deadline);
  return times.length > 0 ? Math.min(...times) : null;
}

function finish(sentence: Sentence, reason: DiscardReason = 'nothing recognized'): SentenceOutput {
  return sentence.phrases.length > 0
    ? { type: 'complete', msgId: sentence.msgId, phrases: [...sentence.phrases] }
    : { type: 'discarded', msgId: sentence.msgId, reason };
}

export function stepSentences(state: SentenceState, event: SentenceEvent, now: number, timing: SentenceTiming): StepResult {
  const outputs: SentenceOutput[] = [];
  let { open, closing, partialPending, early } = state;
  // Early phrases past their time are dropped whatever the event.
  const fresh = early.filter((p) => now < p.at + timing.earlyMs);
  if (fresh.length !== early.length) {
    early.filter((p) => !fresh.includes(p)).forEach((p) => outputs.push({ type: 'stray', text: p.text }));
    early = fresh;
  }

  switch (event.type) {
    case 'speechStart':
      if (open) break;
      // Still owed: the early phrase may also be a late one of the sentence before.
      open = { msgId: event.msgId, phrases: early.map((p) => p.text), owed: true };
      early = [];
      outputs.push({ type: 'interrupt', msgId: event.msgId });
      break;
    case 'speechEnd':
    case 'misfire': {
      if (!open) break;
      const ended = open;
      open = null;
      // Only one sentence waits at a time: a quicker one pushes the older one out.
      if (closing) outputs.push(finish(closing));
      closing = null;
      const waits = event.type === 'speechEnd' && (ended.owed || partialPending);
      if (waits) closing = { ...ended, deadline: now + timing.waitMs };
      else outputs.push(finish(ended, event.type === 'misfire' ? 'misfire' : 'nothing recognized'));
      break;
    }
    case 'recognizing': {
      partialPending = true;
      const target = open ?? closing;
      if (target) outputs.push({ type: 'partial', msgId: target.msgId, text: event.text });
      break;
    }
    case 'recognized':
      partialPending = false;
      // The recognizer finalises in order: a waiting sentence is owed the first final.
      if (closing) {
        outputs.push(finish({ ...closing, phrases: [...closing.phrases, event.text] }));
        closing = null;
      } else if (open) {
        open = { ...open, phrases: [...open.phrases, event.text], owed: false };
      } else {
        early = [...early, { text: event.text, at: now }];
      }
      break;
    case 'tick':
      if (closing && now >= closing.deadline) {
        outputs.push(finish(closing));
        closing = null;
      }
      break;
    case 'flush':
      if (closing) outputs.push(finish(closing, 'cut short'));
      if (open) outputs.push(finish(open, 'cut short'));
      early.forEach((p) => outputs.push({ type: 'stray', text: p.text }));
      open = null;
      closing = null;
      partialPending = false;
      early = [];
      break;
  }
  return { state: { open, closing, partialPending, early }, outputs };
}

/**
 * The waiting sentence (if any) waits `ms` from `now`, whatever its deadline was: the
 * recognizer it waits on has only just connected, and has the audio queued meanwhile to
 * send and decode before the sentence's words can come.
 */
export function waitFrom(state: SentenceState, now: number, ms: number): SentenceState {
  return state.closing ? { ...state, closing: { ...state.closing, deadline: now + ms } } : state;
}

/** Languages written without spaces between words: their phrases are joined as they are. */
const UNSPACED_LANGS: ReadonlySet<string> = new Set(LANGUAGES.filter((language) => language.unspaced).map((language) => language.code));

/** One message from a sentence's phrases, in the interface language's way of writing. */
export function joinPhrases(phrases: readonly string[], lang: string): string {
  const parts = phrases.map((p) => p.trim()).filter((p) => p !== '');
  return parts.join(UNSPACED_LANGS.has(lang) ? '' : ' ');
}
