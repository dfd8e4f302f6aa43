/// <reference types="vite/client" />
/**
 * The voice bench page. bench/voice-pipeline.mjs drives it through `window.voiceBench`:
 * open the shared microphone, start one or both VADs, open the tap so they hear the same
 * audio from the same sample, stop, and read back what each recorded. Phase boundaries are
 * performance marks, which show up in the Chromium trace the driver records.
 */
import { createLogger } from '../../../src/services/logger.ts';
import { openSharedInput, type SharedInput } from './input.ts';
import { startOurs } from './ours.ts';
import type { RunningVad, VadName, VadRun } from './runs.ts';
import { sentenceTimings, startSpeech, type SentenceSend, type SpeechProbe, type SpeechRun } from './speech.ts';
import { startVadWeb } from './vadweb.ts';

const log = createLogger('bench');

export interface LongTask {
  start: number;
  duration: number;
}

export interface StartOptions {
  /** ws://host:port of the stand-in: recognise our pipeline's PCM with its speech service. */
  speechHost?: string;
}

export interface StopResult {
  runs: VadRun[];
  speech: SpeechRun | null;
  /** Per VAD: speechEnd → the app's send, replayed through the app's sentence rule. */
  sentences: Partial<Record<VadName, SentenceSend[]>>;
}

export interface VoiceBenchApi {
  /** `sampleRate`: force the shared AudioContext's rate (16000 makes both resamplers pass-through). */
  open(sampleRate?: number): Promise<{ sampleRate: number }>;
  mark(name: string): number;
  /**
   * Starts the named VADs one after the other (their start-ups do not overlap), then opens
   * the tap; resolves with performance.now() once it is open.
   */
  start(names: VadName[], options?: StartOptions): Promise<number>;
  stop(): Promise<StopResult>;
  /** Long tasks (PerformanceObserver 'longtask') that began in [from, to] (performance.now() ms). */
  longTasks(from: number, to: number): LongTask[];
  dispose(): Promise<void>;
}

declare global {
  interface Window {
    voiceBench?: VoiceBenchApi;
  }
}

const longTasks: LongTask[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration });
}).observe({ type: 'longtask', buffered: true });

let input: SharedInput | null = null;
let running: RunningVad[] = [];
let speech: SpeechProbe | null = null;

function requireInput(): SharedInput {
  if (!input) throw new Error('voiceBench.open() first');
  return input;
}

async function startOne(name: VadName, shared: SharedInput): Promise<RunningVad> {
  if (name === 'vadweb') return startVadWeb(shared);
  const probe = speech;
  return startOurs(shared, probe ? (pcm) => probe.write(pcm) : undefined);
}

window.voiceBench = {
  async open(sampleRate) {
    input ??= await openSharedInput(sampleRate);
    return { sampleRate: input.context.sampleRate };
  },
  mark(name) {
    performance.mark(name);
    return performance.now();
  },
  async start(names, options = {}) {
    const shared = requireInput();
    if (running.length > 0) throw new Error('voiceBench.stop() first');
    if (options.speechHost) speech = await startSpeech(options.speechHost);
    for (const name of names) {
      performance.mark(`start:${name}`);
      running.push(await startOne(name, shared));
      performance.mark(`ready:${name}`);
    }
    await shared.open();
    performance.mark('open');
    return performance.now();
  },
  async stop() {
    const stopping = running;
    running = [];
    const runs = await Promise.all(stopping.map((vad) => vad.stop()));
    requireInput().closeTaps();
    const speechRun = (await speech?.stop()) ?? null;
    speech = null;
    for (const run of runs) if (run.errors.length > 0) log.warn(`${run.name} reported errors`, run.errors);
    const sentences = speechRun ? Object.fromEntries(runs.map((run) => [run.name, sentenceTimings(run, speechRun)])) : {};
    return { runs, speech: speechRun, sentences };
  },
  longTasks: (from, to) => longTasks.filter((t) => t.start >= from && t.start <= to),
  async dispose() {
    await Promise.all(running.map((vad) => vad.stop()));
    running = [];
    await speech?.stop();
    speech = null;
    await input?.dispose();
    input = null;
  },
};
