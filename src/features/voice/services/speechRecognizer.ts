/**
 * Speech recognition through the Speech SDK, fed from the capture pipeline's 16 kHz 16-bit
 * mono PCM (docs/requirements.md R84 and R110). The SDK (~1 MB) is imported lazily, only when voice
 * is used or prefetched while the session connects, never on the pre-session path.
 *
 * Locally the stand-in speaks the SDK's protocol (SpeechConfig.fromHost); elsewhere the
 * account's key and region are used (fromSubscription). Keys are never logged.
 */
import type * as SpeechSdk from 'microsoft-cognitiveservices-speech-sdk';
import { recognitionLocaleFor } from '../locales.ts';
import { waitAtMost } from '../../../services/deadline.ts';
import { createLogger } from '../../../services/logger.ts';

const log = createLogger('speech');

export type SpeechSdkModule = typeof SpeechSdk;
export type SpeechSdkLoader = () => Promise<SpeechSdkModule>;

export const loadSpeechSdk: SpeechSdkLoader = () => import('microsoft-cognitiveservices-speech-sdk');

/** Missing or unusable speech settings: the caller shows the 'asr配置失败' alert. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface RecognizerConfig {
  /** The interface language (zh, cht, en, jp, kor); mapped with locales.ts. */
  lang: string;
  /** Speech host for fromHost (the local stand-in); null → fromSubscription(key, region). */
  host: string | null;
  key: string | null | undefined;
  region: string | null | undefined;
  /** Speech_SegmentationSilenceTimeoutMs: 1000 at call start, 500 after a language change. */
  segmentationSilenceMs: number;
}

export type CancelReason = 'error' | 'endOfStream';

export interface RecognizerEventMap {
  /** `offsetMs`: where the phrase starts in the audio this recognizer was written (its stream's time). */
  recognizing: (text: string, offsetMs: number) => void;
  recognized: (text: string, offsetMs: number) => void;
  /** `connectionLost`: the service could not be reached or stopped answering (not a settings problem). */
  canceled: (reason: CancelReason, errorDetails: string, connectionLost: boolean) => void;
  sessionStopped: () => void;
}

export interface Recognizer {
  readonly locale: string;
  on<K extends keyof RecognizerEventMap>(type: K, listener: RecognizerEventMap[K]): () => void;
  /** Starts continuous recognition; subscribe first. */
  start(): Promise<void>;
  /** One PCM chunk (16 kHz, 16-bit, mono). Ignored after stop(). */
  write(pcm16: Int16Array): void;
  /**
   * Ends recognition, closes the recognizer and the stream. With drainMs, the end of
   * the audio is signalled first and up to drainMs is given for the last result (release
   * of hold-to-talk); without it, recognition stops at once (hang-up).
   */
  stop(options?: { drainMs?: number }): Promise<void>;
}

function required(value: string | null | undefined, what: string): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (!trimmed) throw new ConfigError(`speech ${what} is missing`);
  return trimmed;
}

function speechConfigFor(sdk: SpeechSdkModule, config: RecognizerConfig): SpeechSdk.SpeechConfig {
  // The spec requires both from the account's AsrList, whichever service is used.
  const key = required(config.key, 'key');
  const region = required(config.region, 'region');
  if (config.host === null) return sdk.SpeechConfig.fromSubscription(key, region);
  let host: URL;
  try {
    host = new URL(config.host);
  } catch {
    throw new ConfigError(`speech host is not a URL: ${config.host}`);
  }
  return sdk.SpeechConfig.fromHost(host, key);
}

/** The Speech SDK's (unnamed in PropertyId) amount of audio it sends before pacing the rest at 2x real time. */
export const UNTHROTTLED_PROPERTY = 'SPEECH-TransmitLengthBeforThrottleMs';
/** A day of audio: in practice, never paced. */
export const UNTHROTTLED_MS = 24 * 60 * 60 * 1000;

/** Promisifies the SDK's callback pairs. */
function call(run: (done: () => void, fail: (e: string) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run(resolve, (e) => reject(new Error(e))));
}

export async function createRecognizer(
  config: RecognizerConfig,
  loadSdk: SpeechSdkLoader = loadSpeechSdk,
): Promise<Recognizer> {
  if (!Number.isFinite(config.segmentationSilenceMs) || config.segmentationSilenceMs <= 0) {
    throw new RangeError(`invalid segmentation silence ${config.segmentationSilenceMs}`);
  }
  const sdk = await loadSdk();
  const speechConfig = speechConfigFor(sdk, config);
  const locale = recognitionLocaleFor(config.lang);
  speechConfig.speechRecognitionLanguage = locale;
  speechConfig.setProperty(
    sdk.PropertyId.Speech_SegmentationSilenceTimeoutMs,
    String(Math.round(config.segmentationSilenceMs)),
  );
  // Once more than 5 s of audio has gone out, the SDK paces a backlog (audio queued while
  // the page was busy) with timers run by a worker it starts from a data: URL. The app's
  // CSP does not allow data: workers, so that start throws and the SDK silently stops
  // sending audio for the rest of the call. The page's own timers do the same job.
  speechConfig.setProperty(sdk.PropertyId.WebWorkerLoadType, 'off');
  // The SDK sends a recognizer's first 5 s of audio at once and the rest at no more than twice
  // real time. Live audio comes at real time anyway; only a backlog is slowed: what the visitor
  // said while a loaded phone was still loading the call (the detector, the recognizer) then
  // reached the service seconds late, and its words came after the sentence had been given up.
  // A backlog goes out at once instead, as the first 5 s always did.
  speechConfig.setProperty(UNTHROTTLED_PROPERTY, String(UNTHROTTLED_MS));
  const stream = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16_000, 16, 1));
  const recognizer = new sdk.SpeechRecognizer(speechConfig, sdk.AudioConfig.fromStreamInput(stream));

  const listeners: { [K in keyof RecognizerEventMap]: Set<RecognizerEventMap[K]> } = {
    recognizing: new Set(),
    recognized: new Set(),
    canceled: new Set(),
    sessionStopped: new Set(),
  };
  let stopping: Promise<void> | null = null;
  let onSessionStopped: () => void = () => {};

  recognizer.recognizing = (_sender, event) => {
    const text = event.result.text ?? '';
    if (text) listeners.recognizing.forEach((l) => l(text, offsetMsOf(event.result.offset)));
  };
  recognizer.recognized = (_sender, event) => {
    const text = (event.result.text ?? '').trim();
    if (event.result.reason === sdk.ResultReason.RecognizedSpeech && text) {
      listeners.recognized.forEach((l) => l(text, offsetMsOf(event.result.offset)));
    } else {
      log.debug('segment without text', { reason: event.result.reason });
    }
  };
  recognizer.canceled = (_sender, event) => {
    const reason: CancelReason = event.reason === sdk.CancellationReason.EndOfStream ? 'endOfStream' : 'error';
    const details = event.errorDetails ?? '';
    if (reason === 'error') log.warn('recognition canceled', { code: event.errorCode, details });
    const connectionLost = event.errorCode === sdk.CancellationErrorCode.ConnectionFailure || event.errorCode === sdk.CancellationErrorCode.ServiceTimeout;
    listeners.canceled.forEach((l) => l(reason, details, connectionLost));
  };
  recognizer.sessionStopped = () => {
    onSessionStopped();
    listeners.sessionStopped.forEach((l) => l());
  };

  const stop = async (drainMs: number): Promise<void> => {
    const stopped = new Promise<void>((resolve) => (onSessionStopped = resolve));
    stream.close();
    if (drainMs > 0) await waitAtMost(stopped, drainMs);
    await call((done, fail) => recognizer.stopContinuousRecognitionAsync(done, fail)).catch((err: unknown) =>
      log.warn('stopping recognition failed', String(err)),
    );
    await call((done, fail) => recognizer.close(done, fail)).catch((err: unknown) =>
      log.warn('closing the recognizer failed', String(err)),
    );
  };

  return {
    locale,
    on(type, listener) {
      const set = listeners[type] as Set<typeof listener>;
      set.add(listener);
      return () => set.delete(listener);
    },
    start: () => call((done, fail) => recognizer.startContinuousRecognitionAsync(done, fail)),
    write(pcm16) {
      if (stopping || pcm16.length === 0) return;
      const whole = pcm16.byteOffset === 0 && pcm16.byteLength === pcm16.buffer.byteLength;
      const bytes = whole ? pcm16.buffer : pcm16.buffer.slice(pcm16.byteOffset, pcm16.byteOffset + pcm16.byteLength);
      stream.write(bytes as ArrayBuffer);
    },
    stop(options) {
      stopping ??= stop(Math.max(0, options?.drainMs ?? 0));
      return stopping;
    },
  };
}

/** The SDK's offsets are 100-ns ticks from the start of the recognizer's audio; a missing one counts as 0. */
function offsetMsOf(ticks: number | undefined): number {
  return typeof ticks === 'number' && Number.isFinite(ticks) ? ticks / 10_000 : 0;
}
