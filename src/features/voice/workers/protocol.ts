/**
 * What travels between the main thread, the capture worklet and the VAD worker.
 *
 *   main ──node.port──► worklet      WorkletControl (ports once, the VAD's port when it joins, pause/resume/stop)
 *   worklet ──vad port──► worker     Float32Array of FRAME_SAMPLES at 16 kHz (buffer transferred), or
 *                                    an empty one (GATED_FRAME_SAMPLES) for a frame the echo gate silenced
 *   worklet ──asr port──► main       Int16Array PCM of the same frame (buffer transferred)
 *   worker ──comlink callback──► main  VadEvent only; frames never touch the main thread.
 *
 * Everything here must type-check in the worklet program too (no DOM-only types).
 */
import type { FrameEvent, FrameProcessorOptions, VadThresholds } from './vad/frameProcessor.ts';

export type { FrameEvent, FrameProcessorOptions, VadThresholds };

export const CAPTURE_PROCESSOR_NAME = 'capture-processor';
export const TARGET_SAMPLE_RATE = 16_000;
/** 96 ms at 16 kHz: the frame the Silero legacy model is run on (docs/requirements.md R109). */
export const FRAME_SAMPLES = 1536;

/** processorOptions of the AudioWorkletNode (structured-cloned, so no ports here). */
export interface CaptureProcessorOptions {
  frameSamples: number;
  targetSampleRate: number;
  /**
   * The echo gate (dB, e.g. -12), when the node's second input carries the avatar's audio:
   * while the avatar is audible, a frame whose microphone level stays below the avatar's
   * level plus this many dB is the avatar's echo only, and goes to voice detection and to
   * the recognizer as silence. Absent: no gate.
   */
  echoGateDb?: number;
}

/**
 * A frame the echo gate silenced reaches voice detection as an empty Float32Array: silence
 * by definition, so the worker skips the model for it (while the avatar speaks and the
 * visitor does not, which is most of a call, the detector idles).
 */
export const GATED_FRAME_SAMPLES = 0;

/** Frames (96 ms each) the echo gate stays open after one louder than the echo: about 0.8 s. */
export const ECHO_GATE_HANGOVER_FRAMES = 8;

/** Below this RMS the avatar's audio as received counts as silent (about −50 dBFS): the gate is open. */
export const ECHO_GATE_FAR_FLOOR = 0.003;

/**
 * Main → worklet over node.port. MessagePorts cannot go in processorOptions (they are
 * cloned, not transferred), so they come in the first message, in its transfer list.
 */
export type WorkletControl =
  /** vad is null when nothing detects voice (hold to talk): only the recognizer is fed. */
  | { type: 'ports'; vad: MessagePort | null; asr: MessagePort }
  /**
   * Voice detection joins a call that started without it (its model was still loading):
   * frames go to `port` from the next one on, and none from before reach it.
   */
  | { type: 'vadPort'; port: MessagePort }
  | { type: 'pause' }
  | { type: 'resume' }
  /** The avatar's voice is held in the page (muted): no echo to gate until it is heard again. */
  | { type: 'farEnd'; audible: boolean }
  /**
   * The avatar's voice plays at `volume` (0 to 1) of its received level (the echo canceller's
   * warm-up lowers it): its echo is that much quieter, and the gate compares with it so.
   */
  | { type: 'farVolume'; volume: number }
  | { type: 'stop' };

/** Worklet → main over node.port. */
export type WorkletReport =
  | { type: 'started'; sampleRate: number }
  | { type: 'error'; message: string }
  /** The echo gate sent `frames` frames (so far) to voice detection as silence. */
  | { type: 'gated'; frames: number };

/**
 * Worker → main. Segment events come straight from the frame processor; `stats` at most
 * once per second for benchmarks (frames processed, frames dropped because inference fell
 * behind, inference time over the last second); `warning` for something the worker skipped
 * and goes on from (one failed inference, a bad message on the frame port): the caller logs
 * it; `error` only when the worker cannot go on, which ends the call.
 */
export type VadEvent =
  | FrameEvent
  | { type: 'stats'; frames: number; dropped: number; inferMsMedian: number; inferMsP95: number }
  | { type: 'warning'; message: string }
  | { type: 'error'; message: string };

export type VadEventType = VadEvent['type'];

export interface VadInitOptions {
  /** URL of silero_vad_legacy.onnx. */
  modelUrl: string;
  /** onnxruntime-web wasm location: a directory prefix or `{ wasm: url }` per file. */
  wasmPaths: string | { wasm?: string; mjs?: string };
  frameSamples: number;
  thresholds?: Partial<VadThresholds>;
  /** The rest of the frame-processor settings (redemption, padding, …). */
  processor?: Partial<Omit<FrameProcessorOptions, 'frameSamples'>>;
  /** onnxruntime threads; honoured only when the page is cross-origin isolated. Default 1. */
  numThreads?: number;
}

/** The comlink-exposed worker API (src/features/voice/workers/vad.worker.ts). */
export interface VadWorkerApi {
  /** Loads onnxruntime and the model; `onEvent` is a comlink proxy to the main thread. */
  init(options: VadInitOptions, onEvent: (event: VadEvent) => void): Promise<void>;
  /**
   * The port on which the worklet posts frames; pass it with comlink's transfer(). It may
   * come before init() finishes: frames wait in the port until the model is ready.
   */
  attachPort(port: MessagePort): void;
  setPaused(paused: boolean): void;
  setThresholds(thresholds: Partial<VadThresholds>): void;
  reset(): void;
  dispose(): Promise<void>;
}
