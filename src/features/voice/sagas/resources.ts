/**
 * Opening and releasing what a hold or a call uses — the microphone pipeline (tracks,
 * AudioContext, worklet, VAD worker) and the recognizer — so that nothing outlives
 * the saga however it ends: released, hung up, failed, or cancelled while a start is
 * still in flight (a start that finishes after the saga gave up is stopped at once).
 */
import type { Action } from '@reduxjs/toolkit';
import { catalogue } from '../../notices/messages.ts';
import type { NoticeMessage } from '../../notices/noticesSlice.ts';
import type { PcmFeed } from '../pcmFeed.ts';
import { sessionEnded, sessionEnding } from '../../session/sessionSlice.ts';
import type { MicFailure } from '../voiceSlice.ts';
import type { Logger } from '../../../services/logger.ts';
import { ConfigError, type Recognizer } from '../services/speechRecognizer.ts';
import type { VoiceRecognizerConfig, VoiceService } from '../services/service.ts';
import { micErrorKind, VoicePipelineError } from '../services/pipeline.ts';
import type { VoiceEvents } from './events.ts';
import { throwIfAborted } from '../../../services/compat.ts';

/** The session is ending or has ended: every voice workflow stops. */
export const isSessionOver = (a: Action): boolean => sessionEnding.match(a) || sessionEnded.match(a);

/** A promise's outcome as a value, so a saga can race it without a try/catch around the race. */
export type Settled<T> = { value: T; error?: undefined } | { value?: undefined; error: unknown };
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/**
 * Stands in for a race entry that is not armed (nothing waiting, nothing starting). A new
 * promise each time: a race attaches handlers it cannot detach, and one shared promise that
 * never settles would keep every finished race (and the call it belonged to) reachable.
 */
export const never = (): Promise<never> => new Promise<never>(() => {});

export interface VoiceScope {
  /** Aborted by close(): starts in flight give up and release what they made. */
  readonly signal: AbortSignal;
  /** Resolves with what `starting` makes, and releases it at close() — even if it is made after close(). */
  own<T>(starting: Promise<T>, release: (value: T) => unknown): Promise<T>;
  /** `value` was handed to someone else: close() leaves it alone. */
  disown(value: unknown): void;
  /** Releases everything owned, newest first. Idempotent. */
  close(): void;
}

export function createVoiceScope(log: Logger): VoiceScope {
  const abort = new AbortController();
  const owned = new Map<unknown, () => void>();
  const releaser =
    <T>(release: (value: T) => unknown, value: T) =>
    () => {
      Promise.resolve()
        .then(() => release(value))
        .catch((error: unknown) => log.warn('releasing a voice resource failed', String(error)));
    };

  return {
    signal: abort.signal,
    own(starting, release) {
      return starting.then((value) => {
        if (abort.signal.aborted) {
          releaser(release, value)();
          throw new DOMException('the voice input ended while starting', 'AbortError');
        }
        owned.set(value, releaser(release, value));
        return value;
      });
    },
    disown(value) {
      owned.delete(value);
    },
    close() {
      if (abort.signal.aborted) return;
      abort.abort();
      const releases = [...owned.values()].reverse();
      owned.clear();
      releases.forEach((release) => release());
    },
  };
}

export interface RecognizerHandle {
  readonly recognizer: Recognizer;
  /**
   * Detaches it from the microphone feed and ends recognition; with drainMs the end of
   * the audio is signalled and the last phrase awaited (up to drainMs). Idempotent.
   */
  close(drainMs?: number): Promise<void>;
}

export interface OpenRecognizerOptions {
  events: VoiceEvents;
  /** Tags its events in the channel. */
  id: number;
  feed: PcmFeed;
  signal: AbortSignal;
  /** A direct listener for final phrases that keeps working while the channel is gone (the drain after release). */
  onRecognized?: (text: string) => void;
  /** Replays the feed's audio from this point of its clock first (PcmFeed.attach). */
  replayFromMs?: number;
}

/** Creates and starts a recognizer, then feeds it the microphone audio held so far and what follows. */
export async function openRecognizer(
  voice: VoiceService,
  config: VoiceRecognizerConfig,
  { events, id, feed, signal, onRecognized, replayFromMs }: OpenRecognizerOptions,
): Promise<RecognizerHandle> {
  const recognizer = await voice.createRecognizer(config);
  /** Where this recognizer's audio starts on the feed's clock, once it is attached. */
  let startMs: number | null = null;
  const offs = [events.listen(recognizer, id, () => startMs)];
  if (onRecognized) offs.push(recognizer.on('recognized', onRecognized));
  let closing: Promise<void> | null = null;
  const handle: RecognizerHandle = {
    recognizer,
    close(drainMs = 0) {
      closing ??= (async () => {
        feed.detach(recognizer);
        try {
          await recognizer.stop({ drainMs });
        } finally {
          offs.forEach((off) => off());
        }
      })();
      return closing;
    },
  };
  try {
    throwIfAborted(signal);
    await recognizer.start();
    throwIfAborted(signal);
  } catch (error) {
    await handle.close();
    throw error;
  }
  feed.attach(recognizer, replayFromMs);
  startMs = feed.sinkStartMs;
  return handle;
}

/**
 * How long capture may run, once the microphone is open, without a single chunk of its
 * audio arriving before a call or a hold gives up with "unable to record sound" (a track
 * that delivers nothing: the capture worklet posts only what the microphone gives it).
 */
export const NO_AUDIO_MS = 3000;

/**
 * What a recognition failure says, in a call and in hold to talk alike: a service that could
 * not be reached or stopped answering is the network's ('speechUnreachable'); missing or
 * refused speech settings are the account's ('asr配置失败', R69).
 */
export function recognitionFailureNotice(connectionLost: boolean): NoticeMessage {
  return { id: connectionLost ? catalogue.speechUnreachable.id : catalogue.asrConfigFailed.id };
}

/** Whether a recognizer that could not start met the network: anything but its settings (ConfigError). */
export function connectionLostIn(error: unknown): boolean {
  return !(error instanceof ConfigError);
}

/** The notice for a microphone that opened but gave no audio within NO_AUDIO_MS. */
export function noAudioNotice(): NoticeMessage {
  return { id: catalogue.cannotRecord.id };
}

/** Why the microphone could not be opened, from whatever the pipeline threw. */
export function micFailureOf(error: unknown): MicFailure {
  return error instanceof VoicePipelineError ? error.kind : micErrorKind(error);
}

/**
 * docs/requirements.md R68, R86, R92 and R93: a refused permission says how to allow it; a request for the
 * microphone that failed without being refused says the permission could not be obtained;
 * anything else (no microphone, a busy one, capture that could not start) is the
 * media-access error.
 */
export function micFailureNotice(kind: MicFailure): NoticeMessage {
  if (kind === 'denied') return { id: catalogue.micPermissionDisabled.id };
  if (kind === 'permission') return { id: catalogue.voicePermissionFailed.id };
  return { id: catalogue.mediaAccessFailed.id };
}

export interface RecognizerSlot {
  /** The id of the newest recognizer: events of older ones are stale. */
  readonly id: number;
  /** Stops the current recognizer (if any) and opens a new one (replaying the feed from `replayFromMs`, if given). */
  open(config: VoiceRecognizerConfig, replayFromMs?: number): Promise<RecognizerHandle>;
  /** Stops the current recognizer (if any), opening none: its later events are stale. */
  close(): void;
}

/**
 * One recognizer at a time, replaced on a language change or after a failure. Each
 * has its own abort, so a predecessor still connecting never attaches to the
 * microphone feed after its successor; each is also the scope's, so one still
 * connecting when the scope closes is closed too.
 */
export function createRecognizerSlot(
  voice: VoiceService,
  scope: VoiceScope,
  { events, feed }: Pick<OpenRecognizerOptions, 'events' | 'feed'>,
): RecognizerSlot {
  let id = 0;
  let stopCurrent = () => {};
  return {
    get id() {
      return id;
    },
    open(config, replayFromMs) {
      stopCurrent();
      id += 1;
      const abort = new AbortController();
      const onScopeClosed = () => abort.abort();
      scope.signal.addEventListener('abort', onScopeClosed, { once: true });
      const options = { events, id, feed, signal: abort.signal, ...(replayFromMs !== undefined ? { replayFromMs } : {}) };
      const starting = scope.own(openRecognizer(voice, config, options), (h) => h.close());
      stopCurrent = () => {
        abort.abort();
        scope.signal.removeEventListener('abort', onScopeClosed);
        void starting.then(
          (h) => h.close(),
          () => {},
        );
      };
      return starting;
    },
    close() {
      stopCurrent();
      stopCurrent = () => {};
      id += 1;
    },
  };
}
