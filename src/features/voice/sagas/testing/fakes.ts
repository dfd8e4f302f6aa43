/**
 * A fake voice service for saga tests: pipelines and recognizers whose events the
 * test fires ("the microphone side"), recording what the sagas ask of them and
 * whether everything they opened was released.
 */
import { vi } from 'vitest';
import type { Recognizer, RecognizerEventMap } from '../../services/speechRecognizer.ts';
import type { VoiceRecognizerConfig, VoiceService } from '../../services/service.ts';
import {
  VoicePipelineError,
  type MicErrorKind,
  type VoicePipeline,
  type VoicePipelineOptions,
} from '../../services/pipeline.ts';
import type { VadThresholds } from '../../workers/vad/frameProcessor.ts';

export class FakePipeline implements VoicePipeline {
  readonly sampleRate = 48_000;
  muted = false;
  stopped = false;
  readonly thresholds: Partial<VadThresholds>[] = [];
  readonly mute = vi.fn((muted: boolean) => {
    this.muted = muted;
    return Promise.resolve();
  });
  readonly setThresholds = vi.fn((thresholds: Partial<VadThresholds>) => {
    this.thresholds.push(thresholds);
    return Promise.resolve();
  });
  readonly setFarEndAudible = vi.fn<(audible: boolean) => void>();
  readonly setFarEndVolume = vi.fn<(volume: number) => void>();
  /** Like the real one: the gate has the avatar's audio when it is given a stream. */
  readonly setFarEnd = vi.fn((stream: MediaStream | null) => stream !== null);
  readonly stop = vi.fn(() => {
    this.stopped = true;
    this.detectorJoins(false);
    return Promise.resolve();
  }) as unknown as VoicePipeline['stop'] & ReturnType<typeof vi.fn>;
  readonly detecting: Promise<boolean>;
  private settleDetecting: (joined: boolean) => void = () => {};

  /** detectorLoaded false: the detector is still loading when the pipeline starts (detectorJoins ends that). */
  constructor(
    readonly options: VoicePipelineOptions,
    detectorLoaded = true,
  ) {
    this.detecting = detectorLoaded ? Promise.resolve(true) : new Promise((resolve) => (this.settleDetecting = resolve));
  }

  /** The detector that was loading joins (or, false, never will). */
  detectorJoins(joined = true): void {
    this.settleDetecting(joined);
  }

  speechStart(): void {
    this.options.onSpeechStart?.({ frame: 0 });
  }
  speechEnd(): void {
    const bounds = { startFrame: 0, endFrame: 9, speechFrames: 6 };
    this.options.onSpeechEnd?.({ type: 'speechEnd', ...bounds, audio: new Float32Array(0), audioStartFrame: 0 });
  }
  misfire(): void {
    this.options.onMisfire?.({ type: 'misfire', startFrame: 0, endFrame: 3, speechFrames: 2 });
  }
  /** Microphone audio: `chunks` PCM chunks of 96 ms. */
  pcm(chunks = 1): void {
    for (let i = 0; i < chunks; i += 1) this.options.onPcm16?.(new Int16Array(1536));
  }
  fail(kind: MicErrorKind = 'unavailable'): void {
    this.options.onError?.(new VoicePipelineError(kind, 'the microphone track ended'));
  }
  /** Another app takes the page's audio (iOS: the context is 'interrupted'), then gives it back. */
  audioLost(state = 'interrupted'): void {
    this.options.onAudioLost?.(state);
  }
  audioBack(): void {
    this.options.onAudioBack?.();
  }
}

type Listeners = { [K in keyof RecognizerEventMap]: Set<RecognizerEventMap[K]> };

export class FakeRecognizer implements Recognizer {
  readonly locale: string;
  /** PCM chunks written. */
  writes = 0;
  readonly stops: { drainMs?: number }[] = [];
  /** Said as the last phrase when stopped with a drain (the end of the audio finalises it). */
  finalOnDrain: string | null = null;
  /** Fails (canceled with an error) when stopped with a drain: a service lost after the release. */
  failOnDrain: { connectionLost: boolean } | null = null;
  private readonly listeners: Listeners = {
    recognizing: new Set(),
    recognized: new Set(),
    canceled: new Set(),
    sessionStopped: new Set(),
  };
  readonly start = vi.fn(() => Promise.resolve());
  /** Audio written so far (ms, 16 kHz): a phrase starts here unless told otherwise. */
  writtenMs = 0;
  readonly write = vi.fn((pcm16: Int16Array) => {
    this.writes += 1;
    this.writtenMs += pcm16.length / 16;
  });
  readonly stop = vi.fn((options?: { drainMs?: number }) => {
    this.stops.push(options ?? {});
    if (options?.drainMs && this.finalOnDrain !== null) this.final(this.finalOnDrain);
    if (options?.drainMs && this.failOnDrain !== null) this.fail('connection lost while draining', this.failOnDrain.connectionLost);
    return Promise.resolve();
  });

  constructor(readonly config: VoiceRecognizerConfig) {
    this.locale = config.lang;
  }

  on<K extends keyof RecognizerEventMap>(type: K, listener: RecognizerEventMap[K]): () => void {
    const set = this.listeners[type] as Set<RecognizerEventMap[K]>;
    set.add(listener);
    return () => set.delete(listener);
  }
  get stopped(): boolean {
    return this.stops.length > 0;
  }
  listenerCount(): number {
    return Object.values(this.listeners).reduce((n, set) => n + set.size, 0);
  }
  /** `offsetMs`: where the phrase starts in this recognizer's audio; by default where its audio is now. */
  partial(text: string, offsetMs = this.writtenMs): void {
    this.listeners.recognizing.forEach((l) => l(text, offsetMs));
  }
  final(text: string, offsetMs = this.writtenMs): void {
    this.listeners.recognized.forEach((l) => l(text, offsetMs));
  }
  fail(details = 'service error', connectionLost = false): void {
    this.listeners.canceled.forEach((l) => l('error', details, connectionLost));
  }
}

export type PipelinePlan = 'ok' | 'manual' | MicErrorKind;
export type RecognizerPlan = 'ok' | 'manual' | 'configError';

export function createFakeVoice() {
  const pipelines: FakePipeline[] = [];
  const recognizers: FakeRecognizer[] = [];
  /** detector: 'late' starts pipelines whose detector is still loading (FakePipeline.detectorJoins). */
  const plan = { pipeline: 'ok' as PipelinePlan, recognizer: 'ok' as RecognizerPlan, detector: 'loaded' as 'loaded' | 'late' };
  const waiting = { pipelines: [] as (() => void)[], recognizers: [] as (() => void)[] };

  const startPipeline = vi.fn((options: VoicePipelineOptions): Promise<VoicePipeline> => {
    const kind = plan.pipeline;
    if (kind !== 'ok' && kind !== 'manual') {
      return Promise.reject(new VoicePipelineError(kind, `microphone: ${kind}`));
    }
    const pipeline = new FakePipeline(options, plan.detector === 'loaded');
    pipelines.push(pipeline);
    if (kind === 'ok') return Promise.resolve(pipeline);
    return new Promise((resolve, reject) => {
      // Like the real one: an abort while starting releases what was made and rejects.
      options.signal?.addEventListener('abort', () => {
        pipeline.stopped = true;
        reject(new DOMException('aborted', 'AbortError'));
      });
      waiting.pipelines.push(() => resolve(pipeline));
    });
  });

  const createRecognizer = vi.fn((config: VoiceRecognizerConfig): Promise<Recognizer> => {
    if (plan.recognizer === 'configError') return Promise.reject(new Error('speech key is missing'));
    const recognizer = new FakeRecognizer(config);
    recognizers.push(recognizer);
    if (plan.recognizer === 'ok') return Promise.resolve(recognizer);
    return new Promise((resolve) => waiting.recognizers.push(() => resolve(recognizer)));
  });

  const service: VoiceService = {
    startPipeline,
    createRecognizer,
    prefetch: vi.fn(() => Promise.resolve()),
    warmDetector: vi.fn(),
    releaseDetector: vi.fn(() => Promise.resolve()),
    holdAvatarVoice: vi.fn<VoiceService['holdAvatarVoice']>(),
    setAvatarVolume: vi.fn<VoiceService['setAvatarVolume']>(),
    resumeAvatarVoice: vi.fn<VoiceService['resumeAvatarVoice']>(),
  };

  return {
    service,
    startPipeline,
    createRecognizer,
    prefetch: service.prefetch as ReturnType<typeof vi.fn>,
    warmDetector: service.warmDetector as ReturnType<typeof vi.fn>,
    releaseDetector: service.releaseDetector as ReturnType<typeof vi.fn>,
    pipelines,
    recognizers,
    plan,
    pipeline: () => pipelines.at(-1)!,
    recognizer: () => recognizers.at(-1)!,
    /** Finishes the oldest start left waiting by the 'manual' plan. */
    resolvePipeline: () => waiting.pipelines.shift()?.(),
    resolveRecognizer: () => waiting.recognizers.shift()?.(),
  };
}

export type FakeVoice = ReturnType<typeof createFakeVoice>;
