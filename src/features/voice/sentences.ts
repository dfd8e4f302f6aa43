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
 * A turn is the visitor's whole question (D8): speech that starts again within `resumeMs` of
 * the VAD's end, before the sentence has gone, goes on with it (no new sentence, no new
 * break), and a sentence whose words stop on a word no question ends on (turnEnd.ts) waits
 * those `resumeMs` for the rest before it goes.
 *
 * Pure and synchronous: the saga feeds events and the clock, and acts on the outputs.
 */
import { LANGUAGES } from '../../../lang/languages.ts';
import { continued, leftOpen } from './turnEnd.ts';

export interface Sentence {
  msgId: string;
  phrases: string[];
  /** No final phrase has arrived since the VAD heard this sentence start (or go on). */
  owed: boolean;
  /**
   * Open again after the VAD had ended it, and still owed the final phrase of the part before
   * the pause: the first final phrase while open is that one's (D8).
   */
  partBeforeOwed?: boolean;
  /**
   * Voice detection took the sound back as too short to be speech (a misfire): the sentence is
   * owed nothing, but speech that starts again in time goes on with it, and a final phrase
   * that comes in that time is its words (D8).
   */
  misfired?: boolean;
  /** The visitor went on with it after a pause. */
  resumed?: boolean;
}

export interface SentenceState {
  /** The sentence the VAD is in now. */
  open: Sentence | null;
  /**
   * A sentence the VAD has ended, waiting until `deadline` for its final phrase, or for the
   * visitor to go on after words that left it open; speech until `resumeUntil` goes on with it.
   */
  closing: (Sentence & { deadline: number; resumeUntil: number }) | null;
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
  /** How long after the VAD's end speech still goes on with the sentence, and words that left it open wait for it (D8). */
  resumeMs: number;
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
  /** The visitor went on after a pause: the sentence the VAD had ended is open again (D8). */
  | { type: 'resumed'; msgId: string; pausedMs: number }
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
  // A misfire the visitor did not go on with is taken back, whatever ends its wait.
  return sentence.phrases.length > 0
    ? { type: 'complete', msgId: sentence.msgId, phrases: [...sentence.phrases] }
    : { type: 'discarded', msgId: sentence.msgId, reason: sentence.misfired ? 'misfire' : reason };
}

export function stepSentences(state: SentenceState, event: SentenceEvent, now: number, timing: SentenceTiming, lang: string): StepResult {
  const outputs: SentenceOutput[] = [];
  let { open, closing, partialPending, early } = state;
  // Early phrases past their time are dropped whatever the event.
  const fresh = early.filter((p) => now < p.at + timing.earlyMs);
  if (fresh.length !== early.length) {
    early.filter((p) => !fresh.includes(p)).forEach((p) => outputs.push({ type: 'stray', text: p.text }));
    early = fresh;
  }
  /** A sentence the VAD has ended with its words in: held while they leave it open and the visitor may go on, else sent. */
  const heldOrSent = (ended: Sentence, resumeUntil: number) => {
    if (leftOpen(ended.phrases, lang) && now < resumeUntil) closing = { ...ended, owed: false, deadline: resumeUntil, resumeUntil };
    else outputs.push(finish(ended));
  };

  switch (event.type) {
    case 'speechStart':
      if (open) break;
      if (closing && now < closing.resumeUntil) {
        // The visitor goes on after a pause: the same sentence, and no new break.
        const { deadline: _, resumeUntil, misfired, ...ended } = closing;
        const phrases = [...ended.phrases, ...early.map((p) => p.text)];
        open = { ...ended, phrases, owed: true, partBeforeOwed: ended.owed && !misfired, resumed: true };
        closing = null;
        early = [];
        outputs.push({ type: 'resumed', msgId: ended.msgId, pausedMs: now - (resumeUntil - timing.resumeMs) });
        break;
      }
      // Still owed: the early phrase may also be a late one of the sentence before.
      open = { msgId: event.msgId, phrases: early.map((p) => p.text), owed: true };
      early = [];
      outputs.push({ type: 'interrupt', msgId: event.msgId });
      break;
    case 'speechEnd':
    case 'misfire': {
      if (!open) break;
      const { partBeforeOwed: _, ...ended } = open;
      open = null;
      // Only one sentence waits at a time: a quicker one pushes the older one out.
      if (closing) outputs.push(finish(closing));
      closing = null;
      // Gone on with after a pause, a short sound may be the rest ("store"): it ends the sentence as speech does.
      const heard = ended.phrases.length > 0 || ended.resumed === true;
      if (event.type === 'misfire' && !heard) {
        // Too short to be speech, and nothing else heard: nothing is owed, but the visitor may go on.
        closing = { ...ended, owed: false, misfired: true, deadline: now + timing.resumeMs, resumeUntil: now + timing.resumeMs };
      } else if (ended.owed || partialPending) {
        closing = { ...ended, deadline: now + timing.waitMs, resumeUntil: now + timing.resumeMs };
      } else {
        heldOrSent(ended, now + timing.resumeMs);
      }
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
        // A misfire's words too: a question over the avatar, its threshold raised, can be one.
        const { deadline: _, resumeUntil, misfired: __, ...ended } = closing;
        closing = null;
        heldOrSent({ ...ended, phrases: [...ended.phrases, event.text] }, resumeUntil);
      } else if (open) {
        const phrases = [...open.phrases, event.text];
        // Open again, the first final may be the part before the pause's: the rest is still owed.
        open = open.partBeforeOwed ? { ...open, phrases, partBeforeOwed: false } : { ...open, phrases, owed: false };
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
  const parts = continued(phrases.map((p) => p.trim()).filter((p) => p !== ''), lang);
  return parts.join(UNSPACED_LANGS.has(lang) ? '' : ' ');
}
