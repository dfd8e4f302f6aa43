/**
 * Timed voice-detection and recognizer events through the app's own sentence rule
 * (src/features/voice/sentences.ts), with the saga's timer firing at each deadline before
 * whatever comes next: every output, with when it came. Shared by the voice-pipeline page
 * (bench/voice/page/speech.ts) and bench/turns.mjs.
 */
import { initialSentenceState, nextDeadline, stepSentences, type SentenceEvent, type SentenceOutput, type SentenceTiming } from '../../src/features/voice/sentences.ts';

export interface TimedEvent {
  at: number;
  event: SentenceEvent;
}

export function replaySentences(timed: readonly TimedEvent[], timing: SentenceTiming, lang: string): { at: number; output: SentenceOutput }[] {
  let state = initialSentenceState;
  const outputs: { at: number; output: SentenceOutput }[] = [];
  const step = (event: SentenceEvent, at: number) => {
    const result = stepSentences(state, event, at, timing, lang);
    state = result.state;
    outputs.push(...result.outputs.map((output) => ({ at, output })));
  };
  // Each tick settles what was due, so the next deadline is later; the bound only guards against a rule change.
  const tickUntil = (limit: number) => {
    for (let i = 0; i < 100; i++) {
      const due = nextDeadline(state, timing);
      if (due === null || due > limit) return;
      step({ type: 'tick' }, due);
    }
  };
  for (const { at, event } of [...timed].sort((a, b) => a.at - b.at)) {
    tickUntil(at);
    step(event, at);
  }
  tickUntil(Infinity);
  return outputs;
}
