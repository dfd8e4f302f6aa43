/**
 * End of speech → message sent, without the app around it: the recognizer the app uses
 * (src/features/voice/services/speechRecognizer.ts, against the stand-in's speech service) is fed our
 * pipeline's PCM, and the recorded VAD and recognizer events are replayed through the
 * app's own sentence rule (src/features/voice/sentences.ts) to find when the app would
 * dispatch each message. Replaying each VAD's events gives the same figure for vad-web.
 */
import { createRecognizer, type Recognizer } from '../../../src/features/voice/services/speechRecognizer.ts';
import {
  initialSentenceState,
  nextDeadline,
  stepSentences,
  type SentenceEvent,
} from '../../../src/features/voice/sentences.ts';
import { CALL_START_SILENCE_MS, TIMING } from '../../../src/features/voice/sagas/callState.ts';
import type { VadRun } from './runs.ts';

export interface SpeechRun {
  /** performance.now() of each recognizer event. */
  partials: number[];
  finals: { at: number; text: string }[];
  errors: string[];
}

export interface SpeechProbe {
  readonly run: SpeechRun;
  write(pcm: Int16Array): void;
  stop(): Promise<SpeechRun>;
}

/** The stand-in's account speech settings (server/accounts.ts). */
const STANDIN_KEY = 'demo-speech-key';
const STANDIN_REGION = 'local';

export async function startSpeech(host: string): Promise<SpeechProbe> {
  const run: SpeechRun = { partials: [], finals: [], errors: [] };
  const recognizer: Recognizer = await createRecognizer({
    lang: 'en',
    host,
    key: STANDIN_KEY,
    region: STANDIN_REGION,
    segmentationSilenceMs: CALL_START_SILENCE_MS,
  });
  recognizer.on('recognizing', () => run.partials.push(performance.now()));
  recognizer.on('recognized', (text) => run.finals.push({ at: performance.now(), text }));
  recognizer.on('canceled', (reason, details) => run.errors.push(`${reason}: ${details}`));
  await recognizer.start();
  return {
    run,
    write: (pcm) => recognizer.write(pcm),
    async stop() {
      await recognizer.stop();
      return run;
    },
  };
}

export interface SentenceSend {
  /** VAD speechEnd as seen on the main thread (performance.now() ms). */
  speechEndAt: number;
  /** When the app's sentence rule completes the sentence, i.e. dispatches the send. */
  sentAt: number;
  text: string;
}

/** Replays one VAD's segments and the recognizer's events through the app's sentence rule. */
export function sentenceTimings(vad: VadRun, speech: SpeechRun): SentenceSend[] {
  type Timed = { at: number; event: SentenceEvent };
  const timed: Timed[] = [
    ...vad.segments.flatMap((s, i): Timed[] => [
      { at: s.startAt, event: { type: 'speechStart', msgId: String(i) } },
      ...(s.endAt === null ? [] : [{ at: s.endAt, event: { type: s.misfire ? 'misfire' : 'speechEnd' } } as Timed]),
    ]),
    ...speech.partials.map((at): Timed => ({ at, event: { type: 'recognizing', text: '…' } })),
    ...speech.finals.map(({ at, text }): Timed => ({ at, event: { type: 'recognized', text } })),
  ].sort((a, b) => a.at - b.at);

  const endOf = new Map<string, number>();
  const out: SentenceSend[] = [];
  let state = initialSentenceState;
  const step = (event: SentenceEvent, at: number) => {
    const result = stepSentences(state, event, at, TIMING, 'en');
    state = result.state;
    for (const o of result.outputs) {
      const endAt = 'msgId' in o ? endOf.get(o.msgId) : undefined;
      if (o.type === 'complete' && endAt !== undefined) out.push({ speechEndAt: endAt, sentAt: at, text: o.phrases.join(' ') });
    }
  };
  // The saga's timer fires at each deadline before whatever comes next. Each tick settles
  // what was due, so the next deadline is later; the bound only guards against a rule change.
  const tickUntil = (limit: number) => {
    for (let i = 0; i < 100; i++) {
      const due = nextDeadline(state, TIMING);
      if (due === null || due > limit) return;
      step({ type: 'tick' }, due);
    }
  };
  let open = '';
  for (const { at, event } of timed) {
    tickUntil(at);
    if (event.type === 'speechStart') open = event.msgId;
    if (event.type === 'speechEnd') endOf.set(open, at);
    step(event, at);
  }
  tickUntil(Infinity);
  return out;
}
