/**
 * End of speech → message sent, without the app around it: the recognizer the app uses
 * (src/features/voice/services/speechRecognizer.ts, against the stand-in's speech service) is fed our
 * pipeline's PCM, and the recorded VAD and recognizer events are replayed through the
 * app's own sentence rule (src/features/voice/sentences.ts) to find when the app would
 * dispatch each message. Replaying each VAD's events gives the same figure for vad-web.
 */
import { createRecognizer, type Recognizer } from '../../../src/features/voice/services/speechRecognizer.ts';
import { replaySentences, type TimedEvent } from '../replay.ts';
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
  const timed: TimedEvent[] = [
    ...vad.segments.flatMap((s, i): TimedEvent[] => [
      { at: s.startAt, event: { type: 'speechStart', msgId: String(i) } },
      ...(s.endAt === null ? [] : [{ at: s.endAt, event: { type: s.misfire ? 'misfire' : 'speechEnd' } } as TimedEvent]),
    ]),
    ...speech.partials.map((at): TimedEvent => ({ at, event: { type: 'recognizing', text: '…' } })),
    ...speech.finals.map(({ at, text }): TimedEvent => ({ at, event: { type: 'recognized', text } })),
  ];
  // Each segment's msgId is its index; where it ended.
  const endOf = new Map(vad.segments.flatMap((s, i) => (s.endAt !== null && !s.misfire ? [[String(i), s.endAt] as const] : [])));
  return replaySentences(timed, TIMING, 'en').flatMap(({ at, output }) => {
    const endAt = output.type === 'complete' ? endOf.get(output.msgId) : undefined;
    return output.type === 'complete' && endAt !== undefined ? [{ speechEndAt: endAt, sentAt: at, text: output.phrases.join(' ') }] : [];
  });
}
