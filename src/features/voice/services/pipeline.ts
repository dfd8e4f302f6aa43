/**
 * The microphone side of voice input: getUserMedia → AudioContext → capture worklet, with
 * frames going worklet → VAD worker over one MessageChannel and 16-bit PCM going worklet →
 * main (for the recognizer) over another. The main thread sees VAD events and PCM only.
 *
 * start and stop own every object they create; stop() releases all of it (tracks, nodes,
 * ports, AudioContext, worker), so calls can be started and ended any number of times.
 *
 * This file starts a call and undoes a start that fails. The rest is in voicePipeline/, a
 * file per job: types.ts (the API), browser.ts (the real browser, the microphone asked
 * for), wiring.ts (capture, microphone re-open, mute, stop), warmDetector.ts (the kept
 * detector's hand-over), interruptions.ts (another app taking the audio), workerCalls.ts
 * (bounded calls to the VAD worker), prefetch.ts (loading before the first call).
 */
import type { VadClient } from '../workers/vad.client.ts';
import { throwIfAborted } from '../../../services/compat.ts';
import { untilAborted, waitAtMost } from '../../../services/deadline.ts';
import { browserVoiceDeps, micErrorKind, MIC_CONSTRAINTS } from './pipeline/browser.ts';
import { messageOf, VoicePipelineError, type VoicePipeline, type VoicePipelineDeps, type VoicePipelineOptions } from './pipeline/types.ts';
import { refuseWarm, takeWarm } from './pipeline/warmDetector.ts';
import { wire } from './pipeline/wiring.ts';

// The public face of the pipeline: callers import from this file only, whichever part of
// voicePipeline/ does the work.
export type {
  AudioSessionKind,
  MicErrorKind,
  MisfireEvent,
  SpeechEndEvent,
  VoicePipeline,
  VoicePipelineDeps,
  VoicePipelineOptions,
  WarmVoice,
} from './pipeline/types.ts';
export { VoicePipelineError } from './pipeline/types.ts';
export { browserVoiceDeps, micErrorKind, MIC_CONSTRAINTS } from './pipeline/browser.ts';
export { SUSPENDED_GRACE_MS } from './pipeline/interruptions.ts';
export { prefetchVoice } from './pipeline/prefetch.ts';
export { ECHO_GATE_DB, REOPEN_TIMEOUT_MS } from './pipeline/wiring.ts';
export { WARM_ANSWER_TIMEOUT_MS, WORKER_CALL_TIMEOUT_MS } from './pipeline/workerCalls.ts';

/** How long a suspended AudioContext may take to start before the call is given up. */
const RESUME_TIMEOUT_MS = 3000;

/**
 * Starts capture, and voice detection behind it: resolves once the microphone is captured,
 * and the detector joins when it has loaded (`detecting`). Call it from the user's gesture
 * (or the saga it dispatches at once): the AudioContext is created and resumed, and the
 * microphone requested, before the first await.
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
  /** Made at the start (no detector handed over): the model loads while the microphone opens. */
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
        throw new VoicePipelineError(micErrorKind(err), `microphone: ${messageOf(err)}`, { cause: err });
      },
    );
    pending.push(resumed, mic);
    const newVad = () => deps.createVad({ ...options.vadOptions, signal: abort.signal });
    if (options.detectVoice !== false && !options.warm) vad = newVad();
    // Handed over but not taken yet if the start fails before the microphone is open.
    else if (options.warm) warmPending = true;
    if (!context.audioWorklet) throw new VoicePipelineError('unavailable', 'this browser has no AudioWorklet');
    const worklet = context.audioWorklet.addModule(deps.workletUrl);
    pending.push(worklet);
    // The call starts once the microphone and the worklet are there, whatever the
    // detector's state: the recognizer hears the visitor from the moment the microphone
    // opens, and the detector joins once loaded (wiring.ts).
    const [, stream] = await Promise.all([resumed, mic, worklet]);
    throwIfAborted(abort.signal);
    const wired = wire({ options, deps, context, stream, cleanup, release });
    if (options.detectVoice !== false) {
      const made = vad;
      const warm = options.warm;
      // From here the join owns the detectors, whatever happens.
      vad = null;
      warmPending = false;
      const detector = loadDetector({ made, warm, warmCancel: options.warmCancel, vadOptions: options.vadOptions, deps, signal: abort.signal });
      wired.join({ detector, loading: abort });
    }
    return wired.pipeline;
  } catch (err) {
    abort.abort(err);
    // Wait for every branch, so nothing created after the failure escapes the cleanup.
    await Promise.allSettled(pending);
    await release();
    // A VAD handed over but not taken (the start failed first) goes too: its load stops,
    // and the failure is not held up for it.
    if (warmPending && options.warm) refuseWarm(options.warm, options.warmCancel);
    await vad?.dispose();
    if (err instanceof VoicePipelineError || options.signal?.aborted) throw err;
    throw new VoicePipelineError('failed', `voice pipeline: ${messageOf(err)}`, { cause: err });
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The call's detector once loaded: the one handed over (if it answers in time), the one
 * made at the start, or a new one. Outside startVoicePipeline, so a load still under way
 * (seconds on a slow phone) holds nothing of the call it was for: a closure made in there
 * would keep its whole scope, the AudioContext included, reachable until the load is done.
 */
async function loadDetector({ made, warm, warmCancel, vadOptions, deps, signal }: {
  made: VadClient | null;
  warm: VoicePipelineOptions['warm'];
  warmCancel: VoicePipelineOptions['warmCancel'];
  vadOptions: VoicePipelineOptions['vadOptions'];
  deps: VoicePipelineDeps;
  signal: AbortSignal;
}): Promise<VadClient> {
  const taken = warm ? await takeWarm(warm, vadOptions, signal, warmCancel) : made;
  const detector = taken ?? deps.createVad({ ...vadOptions, signal });
  try {
    await untilAborted(detector.ready, signal, () => signal.reason);
  } catch (err) {
    await detector.dispose();
    throw err;
  }
  return detector;
}

/**
 * resume() stays pending forever when the browser wants a user gesture first: a bounded
 * wait turns that into an error instead of a call that never starts.
 */
async function resumeContext(context: AudioContext): Promise<void> {
  await waitAtMost(context.resume(), RESUME_TIMEOUT_MS);
  if (context.state !== 'running') throw new Error(`audio context is ${context.state} (no user gesture?)`);
}

