/**
 * The capture of a started call: the worklet fed by the microphone, the detector's events
 * passed on, the microphone opened again when its track ends mid-call, mute, and stop
 * (which keeps the detector warm when asked).
 */
import { startCapture } from '../../workers/capture.client.ts';
import type { VadThresholds } from '../../workers/protocol.ts';
import type { VadClient } from '../../workers/vad.client.ts';
import { answers, untilAborted, withTimeout } from '../../../../services/deadline.ts';
import { createLogger } from '../../../../services/logger.ts';
import { MIC_CONSTRAINTS } from './browser.ts';
import { watchAudioSession } from './interruptions.ts';
import { messageOf, VoicePipelineError, type MicErrorKind, type VoicePipeline, type VoicePipelineDeps, type VoicePipelineOptions, type WarmVoice } from './types.ts';
import { bounded, WARM_ANSWER_TIMEOUT_MS } from './workerCalls.ts';

const log = createLogger('voice');

/**
 * The echo gate: while the avatar is audible, a frame whose microphone level stays more
 * than 18 dB below the avatar's own level is the avatar's residual echo, and voice
 * detection and the recognizer hear silence instead (docs/decisions.md, D2). Measured in
 * bench/echo.mjs, residual echo from −35 to −15 dB.
 */
export const ECHO_GATE_DB = -18;
/** How long opening the microphone again, after its track ended mid-call, may take. */
export const REOPEN_TIMEOUT_MS = 5000;

interface WireArgs {
  options: VoicePipelineOptions;
  deps: VoicePipelineDeps;
  context: AudioContext;
  stream: MediaStream;
  /** Undo steps, run in reverse by `release` (which a failed start also runs). */
  cleanup: (() => void | Promise<void>)[];
  release: () => Promise<void>;
}

/** A detector on its way to the call: it resolves once its model is loaded. */
export interface JoiningDetector {
  readonly detector: Promise<VadClient>;
  /**
   * Aborting it stops a load still under way (a call stopped without keeping its
   * detector, or kept for a session that ended first). A controller, not a closure: a
   * stopped call waiting for its detector then holds nothing of the call.
   */
  readonly loading: AbortController;
}

/**
 * Wires the capture at once, before any detector: the recognizer hears the microphone from
 * the moment it opens. With voice detection, `join` gives the detector that is loading;
 * once loaded it gets a new frame channel, so it hears the live audio and none of what was
 * said while it loaded (the recognizer had that).
 */
export function wire({ options, deps, context, stream, cleanup, release }: WireArgs): { pipeline: VoicePipeline; join(joining: JoiningDetector): void } {
  const fail = (kind: MicErrorKind, message: string) => {
    log.warn(message);
    options.onError?.(new VoicePipelineError(kind, message));
  };
  const detect = options.detectVoice !== false;
  /** The worker gave up (an error, not a warning): never kept for another call. */
  let vadBroken = false;
  /** The detector hearing the call, once it has joined. */
  let vad: VadClient | null = null;
  let joining: JoiningDetector | null = null;
  /** Thresholds asked for before the detector joined: it gets them when it does. */
  let thresholds: Partial<VadThresholds> | null = null;
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
    vadPort: null,
    createNode: deps.createWorkletNode,
    ...(options.onPcm16 && { onPcm16: options.onPcm16 }),
    ...(options.farEnd !== undefined && detect && { farEnd: options.farEnd, echoGateDb: ECHO_GATE_DB }),
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
        if (!stopped) fail('unavailable', `the microphone track ended, and no microphone opens again: ${messageOf(err)}`);
      },
    );
  };
  const reopen = (): Promise<MediaStream> => withTimeout(deps.getUserMedia(MIC_CONSTRAINTS), REOPEN_TIMEOUT_MS);
  track?.addEventListener('ended', onEnded);
  cleanup.push(() => track?.removeEventListener('ended', onEnded));
  watchAudioSession(context, cleanup, fail, options);

  /** Aborted when the call stops: the wait for a detector still loading ends at once. */
  const stopping = new AbortController();
  const stop = (stopOptions?: { keepWarm?: boolean; abandon?: AbortSignal }): Promise<WarmVoice | void> => {
    stopping.abort(new DOMException('the call stopped', 'AbortError'));
    stopped ??= release().then(() => {
      // Kept, a detector still loading is handed back loading (the next call needs it
      // loaded) unless `abandon` says no one will; otherwise its load stops.
      const keep = !!stopOptions?.keepWarm && !vadBroken;
      const loading = !vad && joining ? joining.loading : null;
      if (loading && !keep) loading.abort(new DOMException('the call stopped', 'AbortError'));
      return handBack(vad ?? joining?.detector ?? null, keep, keep ? loading : null, stopOptions?.abandon);
    });
    return stopped;
  };

  /** The loaded detector hears the call from now on; false if the call stopped meanwhile. */
  const attach = async (detector: VadClient): Promise<boolean> => {
    vad = detector;
    const unsubscribe = subscribe(detector);
    cleanup.push(() => unsubscribe.forEach((off) => off()));
    if (thresholds) await bounded(detector.setThresholds(thresholds), 'changing the VAD thresholds');
    if (muted) await bounded(detector.setPaused(true), 'pausing voice detection');
    // Stopped while it answered: stop() has it (kept or disposed), and no port is given.
    if (stopped) return false;
    const frames = new MessageChannel();
    cleanup.push(() => (frames.port1.close(), frames.port2.close()));
    detector.adoptPort(frames.port2);
    capture.setVadPort(frames.port1);
    return true;
  };

  let detecting: Promise<boolean> = Promise.resolve(false);
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
    setThresholds: async (next) => {
      if (stopped) return;
      if (vad) await bounded(vad.setThresholds(next), 'changing the VAD thresholds');
      else thresholds = { ...thresholds, ...next };
    },
    setFarEndAudible: (audible) => {
      if (!stopped) capture.setFarEndAudible(audible);
    },
    setFarEndVolume: (volume) => {
      if (!stopped) capture.setFarEndVolume(volume);
    },
    setFarEnd: (stream) => !stopped && capture.setFarEnd(stream),
    get detecting() {
      return detecting;
    },
    stop: stop as VoicePipeline['stop'],
  };
  return {
    pipeline,
    join(next) {
      if (!detect) throw new TypeError('a detector joined a pipeline without voice detection');
      joining = next;
      // The wait ends when the call stops: a load still under way then holds nothing of it.
      detecting = untilAborted(next.detector, stopping.signal, () => stopping.signal.reason).then(
        async (detector) => {
          if (stopped) return false;
          try {
            return await attach(detector);
          } catch (err) {
            if (!stopped) fail('failed', `voice detection could not join the call: ${messageOf(err)}`);
            return false;
          }
        },
        (err: unknown) => {
          if (!stopped) fail('failed', `voice detection could not start: ${messageOf(err)}`);
          return false;
        },
      );
    },
  };
}

/**
 * A stopped call's detector, loaded or still loading: kept (paused, for the next call) or
 * disposed. Outside wire() so that, waiting for a load, it holds nothing of the call.
 */
async function handBack(
  detector: VadClient | Promise<VadClient> | null,
  keep: boolean,
  loading: AbortController | null,
  abandon: AbortSignal | undefined,
): Promise<WarmVoice | void> {
  // Kept while still loading: `abandon` (the session ended first) stops the load.
  const stopLoad = () => loading?.abort(new DOMException('the detector is no longer wanted', 'AbortError'));
  if (loading && abandon) {
    if (abandon.aborted) stopLoad();
    else abandon.addEventListener('abort', stopLoad, { once: true });
  }
  const loaded = await Promise.resolve(detector).catch(() => null);
  abandon?.removeEventListener('abort', stopLoad);
  if (!loaded) return;
  if (!keep) return loaded.dispose();
  // Nothing reaches it until the next call hands it a frame port. A worker that does not
  // answer is not worth keeping.
  if (!(await answers(loaded.setPaused(true), WARM_ANSWER_TIMEOUT_MS))) return loaded.dispose();
  return { vad: loaded, dispose: () => loaded.dispose() };
}
