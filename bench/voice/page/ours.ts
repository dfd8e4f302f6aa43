/**
 * Our pipeline as the app starts it (startVoicePipeline, default VAD options = spec
 * thresholds), except that the microphone, AudioContext and source node are the shared
 * ones (input.ts) so that vad-web hears the same samples. The app's recognizer feed is
 * represented by an onPcm16 that only counts: the PCM messages reach the main thread as
 * in the app, and what the recognizer does with them is the same cost whichever VAD runs.
 */
import { browserVoiceDeps, startVoicePipeline, type VoicePipelineDeps } from '../../../src/features/voice/services/pipeline.ts';
import type { SharedInput } from './input.ts';
import { newRun, segmentEnded, segmentStarted, type RunningVad } from './runs.ts';

/**
 * The shared context seen through a proxy: its source node is our tap and close() is left
 * to the harness. Methods are bound to the real context (native methods reject proxies).
 */
function sharedContext(input: SharedInput): AudioContext {
  const tap = input.createTap();
  return new Proxy(input.context, {
    get(target, key) {
      if (key === 'createMediaStreamSource') return () => tap;
      if (key === 'close') return () => Promise.resolve();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export async function startOurs(input: SharedInput, onPcm16?: (pcm: Int16Array) => void): Promise<RunningVad> {
  const run = newRun('ours', performance.now());
  const deps: VoicePipelineDeps = {
    ...browserVoiceDeps,
    // A clone: stop() stops "its" microphone tracks, which must not end the shared stream.
    getUserMedia: () => Promise.resolve(input.stream.clone()),
    createAudioContext: () => sharedContext(input),
    createWorkletNode: (_context, name, options) => new AudioWorkletNode(input.context, name, options),
  };
  const pipeline = await startVoicePipeline(
    {
      onSpeechStart: ({ frame }) => segmentStarted(run, frame),
      onSpeechEnd: (e) => segmentEnded(run, e.startFrame, e.endFrame, false),
      onMisfire: (e) => segmentEnded(run, e.startFrame, e.endFrame, true),
      onPcm16: (pcm) => {
        run.pcmChunks++;
        onPcm16?.(pcm);
      },
      onStats: (s) => {
        run.stats.push({ at: performance.now(), ...s });
        run.frames = s.frames;
      },
      onError: (err) => run.errors.push(err.message),
    },
    deps,
  );
  // The pipeline starts with the microphone and the detector joins once its model has loaded.
  // Ready means both: the taps open after this, so our detector's frame 0 and vad-web's are
  // cut from the same sample (a detector joining after the audio began counts from later).
  if (!(await pipeline.detecting)) {
    await pipeline.stop();
    throw new Error(`our voice detector did not join the call: ${run.errors.join('; ') || 'no reason given'}`);
  }
  run.readyAt = performance.now();
  return {
    run,
    async stop() {
      await pipeline.stop();
      return run;
    },
  };
}
