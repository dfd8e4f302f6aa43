/**
 * The microphone side of voice input: getUserMedia → AudioContext → capture worklet, with
 * frames going worklet → VAD worker over one MessageChannel and 16-bit PCM going worklet →
 * main (for the recognizer) over another. The main thread sees VAD events and PCM only.
 *
 * start and stop own every object they create; stop() releases all of it (tracks, nodes,
 * ports, AudioContext, worker), so calls can be started and ended any number of times.
 */
import { CAPTURE_WORKLET_URL, startCapture, type CreateWorkletNode } from '../workers/capture.client.ts';
import { prefetchVoiceAssets } from '../workers/prefetch.ts';
import { TARGET_SAMPLE_RATE, type VadThresholds } from '../workers/protocol.ts';
import { createVad, rejectOn, type CreateVadOptions, type VadClient } from '../workers/vad.client.ts';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS, type FrameEvent } from '../workers/vad/frameProcessor.ts';
import { createLogger } from './logger.ts';
import { loadSpeechSdk } from './speechRecognizer.ts';
import { throwIfAborted } from './compat.ts';
import { answers, waitAtMost, withTimeout } from './deadline.ts';

const log = createLogger('voice');

/**
 * denied: the permission was refused. unavailable: there is no microphone (or it went
 * away). permission: the request for the microphone failed without an answer to it (the
 * page may not ask, or the browser could not); failed: anything else.
 */
export type MicErrorKind = 'denied' | 'unavailable' | 'permission' | 'failed';

export class VoicePipelineError extends Error {
  override readonly name = 'VoicePipelineError';
  constructor(
    readonly kind: MicErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type SpeechEndEvent = Extract<FrameEvent, { type: 'speechEnd' }>;
export type MisfireEvent = Extract<FrameEvent, { type: 'misfire' }>;

export interface VoicePipelineOptions {
  onSpeechStart?(event: { frame: number }): void;
  onSpeechEnd?(event: SpeechEndEvent): void;
  onMisfire?(event: MisfireEvent): void;
  /** 96 ms of 16 kHz mono 16-bit PCM, for the recognizer's push stream. */
  onPcm16?(pcm: Int16Array): void;
  onStats?(stats: { frames: number; dropped: number; inferMsMedian: number; inferMsP95: number }): void;
  /** The microphone went away ('unavailable') or voice detection broke ('failed'). */
  onError?(error: VoicePipelineError): void;
  /**
   * The page lost its audio mid-call: another app took it (iOS moves the context to
   * 'interrupted' for a phone call, Siri or an alarm), or the browser suspended it and it
   * did not come back. Nothing useful reaches voice detection until onAudioBack.
   */
  onAudioLost?(state: string): void;
  /** The context runs again after onAudioLost. */
  onAudioBack?(): void;
  vadOptions?: Omit<CreateVadOptions, 'signal'>;
  /**
   * The avatar's received audio (a call): the capture worklet's echo gate compares the
   * microphone's level with it, and voice detection hears silence where the microphone
   * carries only the avatar's echo (ECHO_GATE_DB). Given at all (null too: no avatar
   * stream at the moment), the gate is built and setFarEnd follows the avatar's stream.
   */
  farEnd?: MediaStream | null;
  /**
   * false: no voice detection at all (hold to talk, where the finger marks the sentence):
   * no VAD worker, model or inference, and nothing to wait for but the microphone and the
   * worklet. Default true.
   */
  detectVoice?: boolean;
  /**
   * A VAD kept from an earlier call's stop({ keepWarm: true }), or one still loading (a
   * promise; null when it could not load, and a new one is made): it is taken over, and
   * disposed if the start fails.
   */
  warm?: WarmVoice | Promise<WarmVoice | null>;
  /** Aborting while starting releases whatever was created and rejects. */
  signal?: AbortSignal;
}

/** A VAD worker with its model loaded, kept between calls. */
export interface WarmVoice {
  readonly vad: VadClient;
  dispose(): Promise<void>;
}

export interface VoicePipeline {
  /** The AudioContext's rate (what the worklet resamples from). */
  readonly sampleRate: number;
  mute(muted: boolean): Promise<void>;
  /** E.g. a higher positive threshold while the avatar speaks (anti-barge-in). */
  setThresholds(thresholds: Partial<VadThresholds>): Promise<void>;
  /** The page holds the avatar's voice (false) or plays it (true): the echo gate follows. */
  setFarEndAudible(audible: boolean): void;
  /**
   * The avatar's stream changed (a media reconnect): the echo gate compares with the new
   * one. Returns whether the gate now has the avatar's audio (false without a gate).
   */
  setFarEnd(stream: MediaStream | null): boolean;
  /** Releases everything; with keepWarm the VAD worker survives and is returned. */
  stop(): Promise<void>;
  stop(options: { keepWarm: true }): Promise<WarmVoice>;
  stop(options?: { keepWarm?: boolean }): Promise<WarmVoice | void>;
}

/** The browser, injectable so the wiring is tested without one. */
export interface VoicePipelineDeps {
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  createAudioContext(): AudioContext;
  createWorkletNode: CreateWorkletNode;
  createVad(options: CreateVadOptions): VadClient;
  workletUrl: string;
  /**
   * The page's audio session (Safari 16.4+ `navigator.audioSession`): 'play-and-record'
   * while the microphone is open, 'playback' otherwise, so iOS does not move the avatar's
   * voice to the earpiece at call volume for longer than the microphone is in use.
   */
  setAudioSession?(type: AudioSessionKind): void;
}

export type AudioSessionKind = 'playback' | 'play-and-record';

export const browserVoiceDeps: VoicePipelineDeps = {
  getUserMedia: (constraints) => {
    if (!navigator.mediaDevices?.getUserMedia) {
      // A page that is not a secure context may not ask for the permission at all; a browser
      // without capture has no microphone to ask for.
      if (globalThis.isSecureContext === false) {
        return Promise.reject(new DOMException('the microphone can be asked for only on a secure (https) page', 'SecurityError'));
      }
      return Promise.reject(new DOMException('navigator.mediaDevices is not available', 'NotFoundError'));
    }
    return navigator.mediaDevices.getUserMedia(constraints);
  },
  createAudioContext: () => new AudioContext({ latencyHint: 'interactive' }),
  createWorkletNode: (context, name, options) => new AudioWorkletNode(context, name, options),
  createVad,
  workletUrl: CAPTURE_WORKLET_URL,
  setAudioSession: (type) => {
    const session = (navigator as Navigator & { audioSession?: { type: string } }).audioSession;
    if (!session) return;
    try {
      session.type = type;
    } catch (error) {
      log.warn('audio session type not set', { type, error: String(error) });
    }
  },
};

/** docs/requirements.md R110: 16 kHz, noise suppression, echo cancellation, auto gain. */
export const MIC_CONSTRAINTS: MediaStreamConstraints = {
  audio: {
    channelCount: 1,
    sampleRate: { ideal: TARGET_SAMPLE_RATE },
    noiseSuppression: true,
    echoCancellation: true,
    autoGainControl: true,
  },
};

/**
 * getUserMedia errors that are neither a refusal nor a missing or busy microphone: the
 * permission could not be obtained at all (a page that may not ask, a permissions policy,
 * a document that is not active, a browser that cannot ask).
 */
const PERMISSION_UNOBTAINABLE: ReadonlySet<unknown> = new Set(['SecurityError', 'InvalidStateError', 'TypeError']);

/** Why getUserMedia failed. */
export function micErrorKind(err: unknown): MicErrorKind {
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'NotAllowedError') return 'denied';
  if (name === 'NotFoundError') return 'unavailable';
  if (PERMISSION_UNOBTAINABLE.has(name)) return 'permission';
  return 'failed';
}

const toError = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How long a suspended AudioContext may take to start before the call is given up. */
const RESUME_TIMEOUT_MS = 3000;
/**
 * A context the browser suspended mid-call (not WebKit's 'interrupted') is asked back at
 * once; only if it is not running again this long after is the call paused, so a blip
 * goes unnoticed.
 */
export const SUSPENDED_GRACE_MS = 1000;
/**
 * The echo gate: while the avatar is audible, a frame whose microphone level stays more
 * than 18 dB below the avatar's own level is the avatar's residual echo, and voice
 * detection hears silence instead (the recognizer still hears it). Measured in
 * bench/echo.mjs, residual echo from −35 to −15 dB.
 */
export const ECHO_GATE_DB = -18;
/** How long opening the microphone again, after its track ended mid-call, may take. */
export const REOPEN_TIMEOUT_MS = 5000;

/**
 * Starts capture and detection. Call it from the user's gesture (or the saga it
 * dispatches at once): the AudioContext is created and resumed, and the microphone
 * requested, before the first await.
 */
export async function startVoicePipeline(
  options: VoicePipelineOptions,
  deps: VoicePipelineDeps = browserVoiceDeps,
): Promise<VoicePipeline> {
  throwIfAborted(options.signal);
  if (options.detectVoice === false && options.warm) throw new TypeError('a warm VAD was given to a pipeline without voice detection');
  // Aborted by the caller or by our own failure, so a model still loading stops at once.
  const abort = new AbortController();
  const onAbort = () => abort.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const context = deps.createAudioContext();
  const cleanup: (() => void | Promise<void>)[] = [() => context.close().catch(() => {})];
  const release = async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  };
  // Everything that may throw, even synchronously (no AudioWorklet in an old WebView), is
  // inside the try: a failed start releases whatever it had already made.
  const pending: Promise<unknown>[] = [];
  let vad: VadClient | null = null;
  let warmPending = false;
  try {
    const resumed = resumeContext(context);
    // Set before the microphone opens; back to playback when it closes (stop or failure).
    deps.setAudioSession?.('play-and-record');
    cleanup.push(() => deps.setAudioSession?.('playback'));
    const mic = deps.getUserMedia(MIC_CONSTRAINTS).then(
      (stream) => (cleanup.push(() => stream.getTracks().forEach((track) => track.stop())), stream),
      (err: unknown) => {
        throw new VoicePipelineError(micErrorKind(err), `microphone: ${toError(err)}`, { cause: err });
      },
    );
    pending.push(resumed, mic);
    const newVad = () => {
      const created = deps.createVad({ ...options.vadOptions, signal: abort.signal });
      pending.push(created.ready);
      return created;
    };
    // Made at once unless one is handed over: the model loads while the microphone opens.
    if (options.detectVoice !== false && !options.warm) vad = newVad();
    // Handed over but not taken yet if the start fails before the microphone is open.
    else if (options.warm) warmPending = true;
    if (!context.audioWorklet) throw new VoicePipelineError('unavailable', 'this browser has no AudioWorklet');
    const worklet = context.audioWorklet.addModule(deps.workletUrl);
    pending.push(worklet);
    // Frames for voice detection go into this channel from the moment capture is wired, and
    // wait in it until a detector takes its other end (adoptPort): one this start loads,
    // one handed over that is still loading, or one made when the handed one cannot be used.
    const frames = options.detectVoice === false ? null : new MessageChannel();
    if (frames) cleanup.push(() => (frames.port1.close(), frames.port2.close()));
    if (vad && frames) vad.adoptPort(frames.port2);
    // Capture is wired as soon as the microphone and the worklet are there, whatever the
    // detector's state: the visitor can start talking the moment the microphone opens, and
    // nothing said before the detector (or the recognizer) is ready is lost.
    const [, stream] = await Promise.all([resumed, mic, worklet]);
    throwIfAborted(abort.signal);
    const wired = wire({ options, deps, context, stream, vadPort: frames?.port1 ?? null, cleanup, release });
    if (options.warm) {
      // From here takeWarm owns it, whatever happens.
      warmPending = false;
      vad = await takeWarm(options.warm, options.vadOptions, frames!.port2, abort.signal);
    }
    if (!vad && frames) {
      vad = newVad();
      vad.adoptPort(frames.port2);
    }
    throwIfAborted(abort.signal);
    const pipeline = wired.attachVad(vad);
    await vad?.ready;
    throwIfAborted(abort.signal);
    return pipeline;
  } catch (err) {
    abort.abort(err);
    // Wait for every branch, so nothing created after the failure escapes the cleanup.
    await Promise.allSettled(pending);
    await release();
    // A VAD handed over but not taken (the start failed first) goes too, once it has
    // loaded; the failure is not held up for it.
    if (!vad && warmPending && options.warm) void Promise.resolve(options.warm).then((warm) => warm?.dispose(), () => {});
    await vad?.dispose();
    if (err instanceof VoicePipelineError || options.signal?.aborted) throw err;
    throw new VoicePipelineError('failed', `voice pipeline: ${toError(err)}`, { cause: err });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * resume() stays pending forever when the browser wants a user gesture first: a bounded
 * wait turns that into an error instead of a call that never starts.
 */
async function resumeContext(context: AudioContext): Promise<void> {
  await waitAtMost(context.resume(), RESUME_TIMEOUT_MS);
  if (context.state !== 'running') throw new Error(`audio context is ${context.state} (no user gesture?)`);
}

/**
 * Takes over a VAD handed to the call (loaded or still loading) and makes it fit for this
 * call; null when there is none fit to use (it could not load, or its worker does not
 * answer: then it is disposed), and the call makes its own. An abort stops the wait at
 * once; a VAD that arrives later is disposed.
 */
async function takeWarm(
  handed: WarmVoice | Promise<WarmVoice | null>,
  vadOptions: CreateVadOptions | undefined,
  framePort: MessagePort,
  signal: AbortSignal,
): Promise<VadClient | null> {
  const arrived = Promise.resolve(handed).catch(() => null);
  const late = () => void arrived.then((vad) => vad?.dispose());
  if (signal.aborted) {
    late();
    throw signal.reason;
  }
  const aborted = rejectOn(signal, 'abort', () => signal.reason);
  const warm = await Promise.race([arrived, aborted.promise])
    .catch((error: unknown) => {
      late();
      throw error;
    })
    .finally(() => signal.removeEventListener('abort', aborted.listener));
  if (!warm) return null;
  if (await answers(restoreWarm(warm.vad, vadOptions, framePort), WARM_ANSWER_TIMEOUT_MS)) return warm.vad;
  log.warn('the kept voice detector did not answer: a new one is loaded');
  await warm.dispose();
  return null;
}

/**
 * A warm VAD may carry raised thresholds or an open segment from the last call; it then
 * takes this call's frames (the last call's worklet took the old port with it). Only once
 * it answered: a worker that does not is dropped, and the port goes to its replacement.
 */
async function restoreWarm(vad: VadClient, vadOptions: CreateVadOptions | undefined, framePort: MessagePort): Promise<void> {
  const { positiveSpeechThreshold, negativeSpeechThreshold } = DEFAULT_FRAME_PROCESSOR_OPTIONS;
  await vad.reset();
  await vad.setPaused(false);
  await vad.setThresholds({ positiveSpeechThreshold, negativeSpeechThreshold, ...vadOptions?.thresholds });
  vad.adoptPort(framePort);
}

interface WireArgs {
  options: VoicePipelineOptions;
  deps: VoicePipelineDeps;
  context: AudioContext;
  stream: MediaStream;
  /** Where the worklet posts frames for voice detection; null: none (hold to talk). */
  vadPort: MessagePort | null;
  /** Undo steps, run in reverse by `release` (which a failed start also runs). */
  cleanup: (() => void | Promise<void>)[];
  release: () => Promise<void>;
}

/**
 * Wires the capture at once; the detector joins with attachVad (null: none), which returns
 * the pipeline. Frames posted before that wait in `vadPort`'s channel.
 */
function wire({ options, deps, context, stream, vadPort, cleanup, release }: WireArgs): { attachVad(vad: VadClient | null): VoicePipeline } {
  const fail = (kind: MicErrorKind, message: string) => {
    log.warn(message);
    options.onError?.(new VoicePipelineError(kind, message));
  };
  /** The worker gave up (an error, not a warning): never kept for another call. */
  let vadBroken = false;
  let vad: VadClient | null = null;
  const subscribe = (detector: VadClient) => [
    detector.on('speechStart', (e) => options.onSpeechStart?.(e)),
    detector.on('speechEnd', (e) => options.onSpeechEnd?.(e)),
    detector.on('misfire', (e) => options.onMisfire?.(e)),
    detector.on('stats', (e) => options.onStats?.(e)),
    detector.on('warning', (e) => log.warn(`voice detection: ${e.message}`)),
    detector.on('error', (e) => {
      vadBroken = true;
      fail('failed', `voice detection: ${e.message}`);
    }),
  ];

  const capture = startCapture({
    context,
    stream,
    vadPort,
    createNode: deps.createWorkletNode,
    ...(options.onPcm16 && { onPcm16: options.onPcm16 }),
    ...(options.farEnd !== undefined && vadPort && { farEnd: options.farEnd, echoGateDb: ECHO_GATE_DB }),
    onReport: (report) => {
      if (report?.type === 'error') log.warn(`capture worklet: ${report.message}`);
      else if (report?.type === 'gated') log.info('echo gate: frames heard as the avatar only', { frames: report.frames });
      else if (report?.type === 'started') log.info(`capture started at ${report.sampleRate} Hz`);
    },
  });
  cleanup.push(() => capture.stop());

  let [track] = stream.getAudioTracks();
  let muted = false;
  let stopped: Promise<WarmVoice | void> | null = null;
  // The microphone going away mid-call (a headset unplugged, another app took it, the
  // permission revoked): if the browser still offers a microphone (the default one after a
  // devicechange) the call goes on with it; otherwise it ends with the microphone error.
  const onEnded = () => {
    track?.removeEventListener('ended', onEnded);
    log.warn('the microphone track ended: opening the default microphone again');
    void reopen().then(
      (next) => {
        if (stopped) {
          next.getTracks().forEach((t) => t.stop());
          return;
        }
        cleanup.push(() => next.getTracks().forEach((t) => t.stop()));
        [track] = next.getAudioTracks();
        if (!track) return fail('unavailable', 'the microphone came back without an audio track');
        track.enabled = !muted;
        track.addEventListener('ended', onEnded);
        capture.replaceStream(next);
        log.info('the call goes on with the microphone opened again', { label: track.label });
      },
      (err: unknown) => {
        if (!stopped) fail('unavailable', `the microphone track ended, and no microphone opens again: ${toError(err)}`);
      },
    );
  };
  const reopen = (): Promise<MediaStream> => withTimeout(deps.getUserMedia(MIC_CONSTRAINTS), REOPEN_TIMEOUT_MS);
  track?.addEventListener('ended', onEnded);
  cleanup.push(() => track?.removeEventListener('ended', onEnded));
  watchAudioSession(context, cleanup, fail, options);

  const stop = (stopOptions?: { keepWarm?: boolean }): Promise<WarmVoice | void> => {
    stopped ??= (async () => {
      await release();
      const detector = vad;
      if (!detector) return;
      if (!stopOptions?.keepWarm || vadBroken) return detector.dispose();
      // Nothing reaches it until the next call hands it a frame port. A worker that does
      // not answer is not worth keeping.
      if (!(await answers(detector.setPaused(true), WARM_ANSWER_TIMEOUT_MS))) return detector.dispose();
      return { vad: detector, dispose: () => detector.dispose() };
    })();
    return stopped;
  };

  const pipeline: VoicePipeline = {
    sampleRate: context.sampleRate,
    async mute(on) {
      if (stopped) return;
      // The worklet stops posting and the VAD drops its segment; disabling the track also
      // tells the browser (and its recording indicator) that the microphone is not in use.
      muted = on;
      capture.setPaused(on);
      if (track) track.enabled = !on;
      if (vad) await bounded(vad.setPaused(on), 'pausing voice detection');
    },
    setThresholds: async (thresholds) => {
      if (!stopped && vad) await bounded(vad.setThresholds(thresholds), 'changing the VAD thresholds');
    },
    setFarEndAudible: (audible) => {
      if (!stopped) capture.setFarEndAudible(audible);
    },
    setFarEnd: (stream) => !stopped && capture.setFarEnd(stream),
    stop: stop as VoicePipeline['stop'],
  };
  return {
    attachVad(detector) {
      vad = detector;
      if (detector) {
        const unsubscribe = subscribe(detector);
        cleanup.push(() => unsubscribe.forEach((off) => off()));
      }
      return pipeline;
    },
  };
}

/** How long a control call to the VAD worker may take before the caller goes on without it. */
export const WORKER_CALL_TIMEOUT_MS = 2000;

/**
 * How long a kept detector may take to answer before it is given up for a new one. Longer
 * than a control call's wait: on a busy phone a worker still working through a call's last
 * frames answers late, and a new one (worker, wasm, model) takes far longer than this to
 * load. The capture does not wait on it: frames and the recognizer's audio are already
 * flowing into the call's channel.
 */
export const WARM_ANSWER_TIMEOUT_MS = 6000;

/**
 * A worker call the caller should not wait on forever: a call's loop awaits mute and
 * threshold changes, and a worker that stopped answering must not hold up Hang up.
 */
async function bounded(call: Promise<unknown>, what: string): Promise<void> {
  if (!(await answers(call, WORKER_CALL_TIMEOUT_MS))) log.warn(`${what}: the VAD worker failed or did not answer within ${WORKER_CALL_TIMEOUT_MS} ms`);
}

/**
 * The page's audio in the middle of a call. Another app may take it: iOS moves the context
 * to 'interrupted' (a phone call, Siri, an alarm) and pauses the page's media; asking an
 * interrupted context to resume freezes it there (stream-video-js #2249), so it is never
 * asked while interrupted. When the interruption ends WebKit moves it to 'suspended', and
 * only then is it asked back; a browser that suspends it by itself is asked back at once,
 * and again whenever the page shows, gets the focus or is tapped (a gesture iOS may want).
 * The caller hears onAudioLost when the audio is gone (at once when interrupted; after
 * SUSPENDED_GRACE_MS when suspended) and onAudioBack when it runs again. Removed by
 * `cleanup` before the context closes.
 */
function watchAudioSession(
  context: AudioContext,
  cleanup: (() => void | Promise<void>)[],
  fail: (kind: MicErrorKind, message: string) => void,
  report: Pick<VoicePipelineOptions, 'onAudioLost' | 'onAudioBack'>,
): void {
  let lost = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // 'interrupted' is WebKit's, not in the DOM typings.
  const state = () => context.state as string;
  const loseAudio = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lost || state() === 'running') return;
    lost = true;
    log.warn(`the call pauses: audio ${state()}`);
    report.onAudioLost?.(state());
  };
  const askBack = () => {
    if (state() === 'suspended') context.resume().catch(() => {});
  };
  const onStateChange = () => {
    const now = state();
    if (now === 'running') {
      clearTimeout(timer);
      timer = undefined;
      if (!lost) return;
      lost = false;
      log.info('the audio is back: the call goes on');
      report.onAudioBack?.();
      return;
    }
    if (now === 'closed') {
      clearTimeout(timer);
      fail('unavailable', 'the audio context was closed');
      return;
    }
    log.warn(`audio context ${now} during the call`);
    if (now === 'suspended') {
      askBack();
      timer ??= setTimeout(loseAudio, SUSPENDED_GRACE_MS);
    } else {
      loseAudio();
    }
  };
  const page = globalThis.document as Document | undefined;
  const onPageBack = () => {
    if (page?.visibilityState !== 'hidden') askBack();
  };
  context.addEventListener('statechange', onStateChange);
  page?.addEventListener('visibilitychange', onPageBack);
  page?.addEventListener('pointerdown', onPageBack, true);
  globalThis.addEventListener?.('focus', onPageBack);
  cleanup.push(() => {
    context.removeEventListener('statechange', onStateChange);
    page?.removeEventListener('visibilitychange', onPageBack);
    page?.removeEventListener('pointerdown', onPageBack, true);
    globalThis.removeEventListener?.('focus', onPageBack);
    clearTimeout(timer);
  });
}

let prefetching: Promise<void> | null = null;

/**
 * Warms what a call needs while the session connects, without creating any audio object
 * (no permission prompt, no AudioContext): the Speech SDK chunk, the worker and worklet
 * scripts, the model and the onnxruntime wasm. Never rejects; runs once per page unless
 * something failed (then the next call retries).
 */
export function prefetchVoice(): Promise<void> {
  prefetching ??= Promise.all([
    loadSpeechSdk().then(
      () => [],
      (err: unknown) => [`speech SDK: ${toError(err)}`],
    ),
    prefetchVoiceAssets(),
  ]).then(([sdk, assets]) => {
    const failures = [...sdk, ...assets];
    if (failures.length === 0) return;
    prefetching = null;
    log.warn('voice prefetch incomplete', failures);
  });
  return prefetching;
}
