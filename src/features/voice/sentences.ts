/**
 * Call mode's sentences (spec section 4): voice detection (VAD) starts a sentence and
 * ends it; recognition runs continuously beside it. A sentence is the recognizer's
 * final phrases that arrive while it is open, or shortly after it closed.
 *
 * Why the wait: the VAD ends a sentence after ~0.8 s of quiet, the recognizer finalises
 * after its segmentation silence (1 s at call start) plus decoding, so the final phrase
 * usually arrives after the VAD's end. A closed sentence that is still owed a phrase
 * waits for it up to `waitMs`; one whose phrase already came (the recognizer was
 * quicker, e.g. 500 ms segmentation after a language change) is sent at once.
 *
 * Phrases that arrive with no sentence open or waiting are dropped: the recognizer
 * hears everything, but only speech the VAD accepted is sent, so the avatar's own
 * voice leaking past echo cancellation (which the VAD is made deaf to while the avatar
 * speaks) never becomes a visitor message.
 *
 * Pure and synchronous: the saga feeds events and the clock, and acts on the outputs.
 */

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
}

export type SentenceEvent =
  | { type: 'speechStart'; msgId: string }
  | { type: 'speechEnd' }
  | { type: 'misfire' }
  | { type: 'recognizing'; text: string }
  | { type: 'recognized'; text: string }
  /** The clock moved (the saga's timer for `closing.deadline` fired). */
  | { type: 'tick' }
  /** Recognition stops or restarts (mute, language change, hang-up): finish now. */
  | { type: 'flush' };

export type SentenceOutput =
  /** A sentence started: interrupt the avatar. */
  | { type: 'interrupt'; msgId: string }
  | { type: 'partial'; msgId: string; text: string }
  | { type: 'complete'; msgId: string; phrases: string[] }
  | { type: 'discarded'; msgId: string; reason: 'nothing recognized' | 'misfire' }
  | { type: 'stray'; text: string };

export interface StepResult {
  state: SentenceState;
  outputs: SentenceOutput[];
}

export const initialSentenceState: SentenceState = { open: null, closing: null, partialPending: false };

function finish(sentence: Sentence, reason: 'nothing recognized' | 'misfire' = 'nothing recognized'): SentenceOutput {
  return sentence.phrases.length > 0
    ? { type: 'complete', msgId: sentence.msgId, phrases: [...sentence.phrases] }
    : { type: 'discarded', msgId: sentence.msgId, reason };
}

export function stepSentences(state: SentenceState, event: SentenceEvent, now: number, waitMs: number): StepResult {
  const outputs: SentenceOutput[] = [];
  let { open, closing, partialPending } = state;

  switch (event.type) {
    case 'speechStart':
      if (open) break;
      open = { msgId: event.msgId, phrases: [], owed: true };
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
      if (waits) closing = { ...ended, deadline: now + waitMs };
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
        outputs.push({ type: 'stray', text: event.text });
      }
      break;
    case 'tick':
      if (closing && now >= closing.deadline) {
        outputs.push(finish(closing));
        closing = null;
      }
      break;
    case 'flush':
      if (closing) outputs.push(finish(closing));
      if (open) outputs.push(finish(open));
      open = null;
      closing = null;
      partialPending = false;
      break;
  }
  return { state: { open, closing, partialPending }, outputs };
}

/** Languages written without spaces between words: their phrases are joined as they are. */
const UNSPACED_LANGS: ReadonlySet<string> = new Set(['zh', 'cht', 'jp']);

/** One message from a sentence's phrases, in the interface language's way of writing. */
export function joinPhrases(phrases: readonly string[], lang: string): string {
  const parts = phrases.map((p) => p.trim()).filter((p) => p !== '');
  return parts.join(UNSPACED_LANGS.has(lang) ? '' : ' ');
}
