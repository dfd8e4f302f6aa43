/**
 * The capture pipeline on a page of its own, for the engine lanes: the app's
 * startVoicePipeline with the app's browser dependencies (getUserMedia → AudioContext →
 * capture AudioWorklet → MessagePort → the VAD worker running Silero through
 * onnxruntime-web), as a hands-free call starts it, minus the recognizer. The driver
 * installs the test microphone, taps Run, and reads back the speech segments the VAD
 * found, in 16 kHz frames of 512 samples.
 *
 * Sample-exact feeding: the microphone is opened as in a call, but the samples the
 * worklet gets are the test microphone's file played inside the pipeline's own
 * AudioContext, connected and started on a render-quantum boundary once the worklet is
 * wired, so frame 0 is the file's first sample in every engine and run. The file's 16 kHz
 * PCM goes into an AudioBuffer as it is, and the source node's playback brings it to the
 * context's rate (decodeAudioData would resample with each engine's own resampler, a
 * difference of the harness, not of the pipeline). A MediaStream crossing from the
 * microphone's context into the pipeline's would start at a moment that differs by tens
 * of milliseconds from run to run, and drift under load: Chromium against itself moved a
 * segment by 3 frames that way, which would hide any difference between engines.
 */
import { browserVoiceDeps, startVoicePipeline, type VoicePipelineDeps } from '../../../src/features/voice/services/pipeline.ts';

export interface HarnessRun {
  /** The AudioContext's rate the worklet resampled from. */
  sampleRate: number;
  /** Speech segments: first and last frame (16 kHz, 512 samples each). */
  segments: { start: number; end: number }[];
  /** Frames of the first speech start, misfires included. */
  onsets: number[];
  misfires: number;
  /** Frames the VAD processed, from its last stats. */
  frames: number;
  /** PCM chunks that reached the main thread (the recognizer's feed). */
  pcmChunks: number;
  errors: string[];
}

declare global {
  interface Window {
    captureHarness?: { run(ms: number, file: string): Promise<HarnessRun>; result?: HarnessRun };
    /** The test microphone's files, base64 by name (tests/support/testMicrophone.ts). */
    __testMicrophoneFiles?: Record<string, string>;
  }
}

/** A 16-bit mono PCM WAV (44-byte header, as scripts/make-fixtures.mjs writes them), base64, as an AudioBuffer at its own rate. */
function pcm16Buffer(context: AudioContext, wav: string): AudioBuffer {
  const binary = atob(wav);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  const view = new DataView(bytes.buffer);
  const rate = view.getUint32(24, true);
  const samples = (bytes.length - 44) >> 1;
  const buffer = context.createBuffer(1, samples, rate);
  const channel = buffer.getChannelData(0);
  for (let i = 0; i < samples; i += 1) channel[i] = view.getInt16(44 + 2 * i, true) / 32768;
  return buffer;
}

window.captureHarness = {
  async run(ms, file) {
    const result: HarnessRun = { sampleRate: 0, segments: [], onsets: [], misfires: 0, frames: 0, pcmChunks: 0, errors: [] };
    const wav = window.__testMicrophoneFiles?.[file];
    if (!wav) throw new Error(`no test microphone file ${file}`);
    let context: AudioContext | null = null;
    let worklet: AudioNode | null = null;
    let player: AudioBufferSourceNode | null = null;
    const deps: VoicePipelineDeps = {
      ...browserVoiceDeps,
      createAudioContext: () => {
        const real = browserVoiceDeps.createAudioContext();
        context = real;
        // Where the pipeline connects the microphone's source node to its worklet, the
        // harness only notes the worklet: it gets no input until the file starts.
        const tap = {
          connect: (node: AudioNode) => {
            worklet = node;
            return node;
          },
          disconnect: () => player?.disconnect(),
        };
        return new Proxy(real, {
          get(target, key) {
            if (key === 'createMediaStreamSource') return () => tap;
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        });
      },
      // The node's constructor wants the real context, not the proxy.
      createWorkletNode: (_proxy, name, options) => new AudioWorkletNode(context!, name, options),
    };
    const pipeline = await startVoicePipeline(
      {
        onSpeechStart: ({ frame }) => result.onsets.push(frame),
        onSpeechEnd: (e) => result.segments.push({ start: e.startFrame, end: e.endFrame }),
        onMisfire: () => (result.misfires += 1),
        onPcm16: () => (result.pcmChunks += 1),
        onStats: (s) => (result.frames = s.frames),
        onError: (e) => result.errors.push(`${e.kind}: ${e.message}`),
      },
      deps,
    );
    result.sampleRate = pipeline.sampleRate;
    // A call starts before its detector has loaded; this run compares the detector's
    // segments, so the file plays once it hears the microphone.
    if (!(await pipeline.detecting)) throw new Error(`voice detection did not join: ${result.errors.join('; ')}`);
    const ctx = context as AudioContext | null;
    const target = worklet as AudioNode | null;
    if (!ctx || !target) throw new Error('the pipeline did not create its context and worklet');
    const source = ctx.createBufferSource();
    source.buffer = pcm16Buffer(ctx, wav);
    source.connect(target);
    // Two render quanta ahead, on a quantum boundary.
    const quantum = 128 / ctx.sampleRate;
    source.start((Math.ceil(ctx.currentTime / quantum) + 2) * quantum);
    player = source;
    await new Promise((resolve) => setTimeout(resolve, ms));
    await pipeline.stop();
    return result;
  },
};
// A call starts with a tap, and WebKit resumes an AudioContext only inside one: the driver
// taps this button (WebDriver's click is a user gesture), then reads captureHarness.result.
const button = document.createElement('button');
button.type = 'button';
button.textContent = 'Run';
button.addEventListener('click', () => {
  const ms = Number(button.dataset.ms ?? 13_000);
  button.disabled = true;
  window.captureHarness!.run(ms, button.dataset.file ?? '').then(
    (run) => (window.captureHarness!.result = run),
    (error: unknown) => (window.captureHarness!.result = { sampleRate: 0, segments: [], onsets: [], misfires: 0, frames: 0, pcmChunks: 0, errors: [String(error)] }),
  );
});
document.body.append(button);
document.body.dataset.ready = 'true';
