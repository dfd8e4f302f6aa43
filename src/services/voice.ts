/**
 * The voice pipeline and the speech recognizer as the voice sagas see them (saga
 * context `voice`). A thin seam over src/services/voicePipeline.ts and
 * speechRecognizer.ts: the only thing it adds is the environment's speech host, so
 * sagas never read the environment and tests pass a fake without module mocks.
 */
import { prefetchVoice, startVoicePipeline, type VoicePipeline, type VoicePipelineOptions } from './voicePipeline.ts';
import { createRecognizer, type Recognizer, type RecognizerConfig } from './speechRecognizer.ts';

export type VoiceRecognizerConfig = Omit<RecognizerConfig, 'host'>;

export interface VoiceService {
  /**
   * Starts microphone capture, the capture worklet and the VAD worker. Everything before
   * its first await runs synchronously, so calling it in a user gesture's call stack
   * keeps the gesture (iOS needs one to start an AudioContext).
   */
  startPipeline(options: VoicePipelineOptions): Promise<VoicePipeline>;
  /** A recognizer fed by the caller's push stream; rejects with ConfigError on a bad config. */
  createRecognizer(config: VoiceRecognizerConfig): Promise<Recognizer>;
  /** Warms the Speech SDK chunk and the pipeline's assets; never rejects. */
  prefetch(): Promise<void>;
}

export interface VoiceServiceOptions {
  /** environment.speechHost: the stand-in's origin locally, null for fromSubscription. */
  speechHost: string | null;
}

export function createVoiceService({ speechHost }: VoiceServiceOptions): VoiceService {
  return {
    startPipeline: (options) => startVoicePipeline(options),
    createRecognizer: (config) => createRecognizer({ ...config, host: speechHost }),
    prefetch: () => prefetchVoice(),
  };
}
