/**
 * The capture of a started call: the worklet fed by the microphone, the detector's events
 * passed on, the microphone opened again when its track ends mid-call, mute, and stop
 * (which keeps the detector warm when asked).
 */
import { startCapture } from '../../workers/capture.client.ts';
import type { VadClient } from '../../workers/vad.client.ts';
import { answers, withTimeout } from '../deadline.ts';
import { createLogger } from '../logger.ts';
import { MIC_CONSTRAINTS } from './browser.ts';
import { watchAudioSession } from './interruptions.ts';
import { messageOf, VoicePipelineError, type MicErrorKind, type VoicePipeline, type VoicePipelineDeps, type VoicePipelineOptions, type WarmVoice } from './types.ts';
import { bounded, WARM_ANSWER_TIMEOUT_MS } from './workerCalls.ts';

const log = createLogger('voice');

/**
 * The echo gate: while the avatar is audible, a frame whose microphone level stays more
 * than 18 dB below the avatar's own level is the avatar's residual echo, and voice
 * detection hears silence instead (the recognizer still hears it). Measured in
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
export function wire({ options, deps, context, stream, vadPort, cleanup, release }: WireArgs): { attachVad(vad: VadClient | null): VoicePipeline } {
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
        if (!stopped) fail('unavailable', `the microphone track ended, and no microphone opens again: ${messageOf(err)}`);
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
    setFarEndVolume: (volume) => {
      if (!stopped) capture.setFarEndVolume(volume);
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
