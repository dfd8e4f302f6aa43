/**
 * The capture AudioWorkletProcessor ('capture-processor'): microphone render quanta in,
 * 16 kHz frames of 1536 samples out, straight to the VAD worker and the recognizer feed.
 *
 * It runs on the real-time audio thread, so it stays small and synchronous: no async
 * init, no onnxruntime, no comlink, no allocation beyond one frame per 96 ms. Vite bundles
 * it with the dsp modules into one file (imported with `?worker&url`). It is type-checked
 * on its own (tsconfig.worklet.json) because the worklet scope has neither DOM nor worker
 * globals beyond MessagePort.
 */
import { Framer } from './dsp/framer.ts';
import { floatToPcm16 } from './dsp/pcm16.ts';
import { StreamingResampler } from './dsp/resampler.ts';
import {
  CAPTURE_PROCESSOR_NAME,
  FRAME_SAMPLES,
  TARGET_SAMPLE_RATE,
  type CaptureProcessorOptions,
  type WorkletControl,
  type WorkletReport,
} from './protocol.ts';

// The AudioWorkletGlobalScope, as much of it as this file uses.
declare global {
  const sampleRate: number;
  function registerProcessor(name: string, ctor: new (options?: { processorOptions?: unknown }) => AudioWorkletProcessor): void;
  abstract class AudioWorkletProcessor {
    readonly port: MessagePort;
    constructor();
    abstract process(inputs: Float32Array[][], outputs: Float32Array[][], parameters: Record<string, Float32Array>): boolean;
  }
}

function readOptions(raw: unknown): CaptureProcessorOptions {
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<CaptureProcessorOptions>;
  const valid = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
  return {
    frameSamples: valid(o.frameSamples) ? o.frameSamples : FRAME_SAMPLES,
    targetSampleRate: valid(o.targetSampleRate) ? o.targetSampleRate : TARGET_SAMPLE_RATE,
  };
}

class CaptureProcessor extends AudioWorkletProcessor {
  private vadPort: MessagePort | null = null;
  private asrPort: MessagePort | null = null;
  private paused = false;
  private stopped = false;
  private readonly resampler: StreamingResampler;
  private readonly framer: Framer;

  constructor(options?: { processorOptions?: unknown }) {
    super();
    const { frameSamples, targetSampleRate } = readOptions(options?.processorOptions);
    this.resampler = new StreamingResampler(sampleRate, targetSampleRate);
    this.framer = new Framer(frameSamples, (frame) => this.emit(frame));
    this.port.onmessage = (event: MessageEvent<unknown>) => this.onControl(event.data);
  }

  process(inputs: Float32Array[][]): boolean {
    // Returning false lets the browser collect the processor once stopped.
    if (this.stopped) return false;
    // The node is created with channelCount 1 / 'explicit', so the engine has already
    // downmixed; an empty input means the track ended or is not connected yet.
    const channel = inputs[0]?.[0];
    if (!channel || this.paused || !this.asrPort) return true;
    this.framer.push(this.resampler.process(channel));
    return true;
  }

  private emit(frame: Float32Array): void {
    if (this.asrPort) {
      const pcm = floatToPcm16(frame);
      this.asrPort.postMessage(pcm, [pcm.buffer]);
    }
    // After the transfer `frame` is detached: it must be the last use.
    this.vadPort?.postMessage(frame, [frame.buffer]);
  }

  private onControl(data: unknown): void {
    const message = data as Partial<WorkletControl> | null;
    switch (message?.type) {
      case 'ports': {
        const { vad, asr } = message as Extract<WorkletControl, { type: 'ports' }>;
        if ((vad !== null && !isPort(vad)) || !isPort(asr)) {
          this.report({ type: 'error', message: 'ports message without a recognizer MessagePort (and a VAD one or null)' });
          return;
        }
        this.vadPort = vad;
        this.asrPort = asr;
        this.report({ type: 'started', sampleRate });
        return;
      }
      case 'pause':
        this.paused = true;
        // Audio from before the mute must not be glued to audio after it.
        this.framer.reset();
        this.resampler.reset();
        return;
      case 'resume':
        this.paused = false;
        return;
      case 'stop':
        this.stopped = true;
        this.vadPort?.close();
        this.asrPort?.close();
        this.vadPort = null;
        this.asrPort = null;
        // The node on the main thread may outlive its call (Chromium keeps it while its
        // AudioContext object lives): let go of this processor with it.
        this.port.onmessage = null;
        this.port.close();
        return;
      default:
        this.report({ type: 'error', message: `unknown control message ${String(message?.type)}` });
    }
  }

  private report(report: WorkletReport): void {
    this.port.postMessage(report);
  }
}

registerProcessor(CAPTURE_PROCESSOR_NAME, CaptureProcessor);

/**
 * Not `instanceof MessagePort`: the global may be missing from an AudioWorkletGlobalScope
 * (older WebKit exposes MessagePort to windows and workers only), and the check would throw
 * there, leaving the call without audio and without an error.
 */
function isPort(value: unknown): value is MessagePort {
  const port = value as Partial<MessagePort> | null;
  return typeof port?.postMessage === 'function' && typeof port.close === 'function';
}
