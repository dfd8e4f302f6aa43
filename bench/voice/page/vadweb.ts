/**
 * @ricky0123/vad-web 0.0.31's MicVAD with the same model and settings as ours. 0.0.31 takes
 * the frame counts in milliseconds and converts them with floor(ms / 96), so each is given
 * as frames × 96 ms. It runs the model on the main thread, in its worklet port's
 * onmessage: that is the design this bench compares against.
 */
import { MicVAD } from '@ricky0123/vad-web';
import { FRAME_SAMPLES, TARGET_SAMPLE_RATE } from '../../../src/features/voice/workers/protocol.ts';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS as SPEC } from '../../../src/features/voice/workers/vad/frameProcessor.ts';
import type { SharedInput } from './input.ts';
import { newRun, segmentEnded, segmentStarted, type RunningVad } from './runs.ts';

const FRAME_MS = (FRAME_SAMPLES / TARGET_SAMPLE_RATE) * 1000;

type ModelCall = (frame: Float32Array) => Promise<unknown>;
/** MicVAD's private frame processor; its model call is looked up on every frame. */
interface FrameProcessorInternals {
  frameProcessor: { modelProcessFunc: ModelCall };
}

/**
 * MicVAD.start() builds `new MediaStreamAudioSourceNode(context, { mediaStream })` itself;
 * for the length of start() that constructor returns our tap instead.
 */
async function withTapAsSource<T>(input: SharedInput, body: () => Promise<T>): Promise<T> {
  const original = globalThis.MediaStreamAudioSourceNode;
  const tap = input.createTap();
  // Returning an object from a constructor makes `new` yield that object.
  globalThis.MediaStreamAudioSourceNode = function TapAsSource() {
    return tap;
  } as unknown as typeof MediaStreamAudioSourceNode;
  try {
    return await body();
  } finally {
    globalThis.MediaStreamAudioSourceNode = original;
  }
}

export async function startVadWeb(input: SharedInput): Promise<RunningVad> {
  const run = newRun('vadweb', performance.now());
  let open: { startFrame: number } | null = null;
  const assets = `${import.meta.env.BASE_URL}vad-web/`;
  const vad = await MicVAD.new({
    model: 'legacy',
    positiveSpeechThreshold: SPEC.positiveSpeechThreshold,
    negativeSpeechThreshold: SPEC.negativeSpeechThreshold,
    minSpeechMs: SPEC.minSpeechFrames * FRAME_MS,
    preSpeechPadMs: SPEC.preSpeechPadFrames * FRAME_MS,
    redemptionMs: SPEC.redemptionFrames * FRAME_MS,
    submitUserSpeechOnPause: false,
    baseAssetPath: assets,
    onnxWASMBasePath: assets,
    audioContext: input.context,
    processorType: 'AudioWorklet',
    startOnLoad: false,
    // A clone: pause()/destroy() stop "its" tracks, which must not end the shared stream.
    getStream: () => Promise.resolve(input.stream.clone()),
    // Frame index = frames processed so far − 1; events for a frame follow its onFrameProcessed.
    onFrameProcessed: () => {
      run.frames++;
      run.frameAt.push(performance.now());
    },
    onSpeechStart: () => {
      open = { startFrame: run.frames - 1 };
      segmentStarted(run, open.startFrame);
    },
    onSpeechEnd: () => {
      segmentEnded(run, open?.startFrame ?? -1, run.frames - 1, false);
      open = null;
    },
    onVADMisfire: () => {
      segmentEnded(run, open?.startFrame ?? -1, run.frames - 1, true);
      open = null;
    },
  });
  // Times the model call itself, the same span our worker's inferMs covers.
  const processor = (vad as unknown as FrameProcessorInternals).frameProcessor;
  const model = processor.modelProcessFunc;
  processor.modelProcessFunc = async (frame) => {
    const started = performance.now();
    const result = await model(frame);
    run.inferMs.push(performance.now() - started);
    return result;
  };
  await withTapAsSource(input, () => vad.start());
  if (vad.errored) run.errors.push(vad.errored);
  run.readyAt = performance.now();
  return {
    run,
    async stop() {
      await vad.destroy();
      return run;
    },
  };
}
