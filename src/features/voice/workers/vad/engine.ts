/**
 * The worker's frame loop without the worker: frames in (from the worklet's port), model
 * inference one frame at a time in arrival order, frame processor, events out. Kept apart
 * from vad.worker.ts so it is tested with a fake model and fake clock.
 */
import { GATED_FRAME_SAMPLES, type VadEvent, type VadThresholds } from '../protocol.ts';
import { FrameProcessor, type FrameProcessorOptions } from './frameProcessor.ts';

/** What the engine needs from a VAD model (SileroLegacy implements it). */
export interface SpeechModel {
  process(frame: Float32Array): Promise<number>;
  resetState(): void;
  release(): Promise<void>;
}

export interface VadEngineOptions {
  processor?: Partial<FrameProcessorOptions>;
  /** Frames waiting for inference beyond this are dropped oldest-first (device too slow). */
  maxQueue?: number;
  statsIntervalMs?: number;
  now?: () => number;
}

/** ~3 s of audio: beyond that the detection would be too late to be useful anyway. */
const DEFAULT_MAX_QUEUE = 32;
/** Give up after this many inference failures in a row (a broken model, not a hiccup). */
const MAX_CONSECUTIVE_FAILURES = 3;

export class VadEngine {
  private readonly processor: FrameProcessor;
  private readonly maxQueue: number;
  private readonly statsIntervalMs: number;
  private readonly now: () => number;
  private queue: Float32Array[] = [];
  private running: Promise<void> | null = null;
  /** Bumped by pause/reset/dispose so a result computed for older audio is discarded. */
  private generation = 0;
  private disposed = false;
  private failed = false;
  private failures = 0;
  private badInputReported = false;
  /** Whether the last frame was one the echo gate silenced (the model's state is reset at the first). */
  private inGatedRun = false;
  /** What the frame processor keeps of a gated frame: silence (never written to: segments copy frames). */
  private readonly silence: Float32Array;
  private frames = 0;
  private dropped = 0;
  private inferMs: number[] = [];
  private lastStats: number;

  constructor(
    private readonly model: SpeechModel,
    private readonly emit: (event: VadEvent) => void,
    options: VadEngineOptions = {},
  ) {
    this.processor = new FrameProcessor(options.processor);
    this.silence = new Float32Array(this.processor.settings.frameSamples);
    this.maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.statsIntervalMs = options.statsIntervalMs ?? 1000;
    this.now = options.now ?? (() => performance.now());
    this.lastStats = this.now();
  }

  /**
   * A message from the worklet's port: a frame of the right size, or an empty one for a frame
   * the echo gate silenced. Anything else is dropped.
   */
  push(data: unknown): void {
    if (this.disposed || this.failed || this.processor.isPaused) return;
    if (!isFloat32Array(data) || (data.length !== this.processor.settings.frameSamples && data.length !== GATED_FRAME_SAMPLES)) {
      if (!this.badInputReported) {
        this.badInputReported = true;
        this.emit({ type: 'warning', message: `unexpected message on the frame port: ${describe(data)}` });
      }
      return;
    }
    this.queue.push(data);
    if (this.queue.length > this.maxQueue) {
      this.dropped += this.queue.length - this.maxQueue;
      this.queue.splice(0, this.queue.length - this.maxQueue);
    }
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  setPaused(paused: boolean): void {
    if (paused) {
      this.discardPending();
      for (const event of this.processor.pause()) this.emit(event);
    } else {
      this.processor.resume();
    }
  }

  setThresholds(thresholds: Partial<VadThresholds>): void {
    this.processor.setOptions(thresholds);
  }

  reset(): void {
    this.discardPending();
    this.processor.reset();
  }

  /** Resolves once no frame is in flight; the model is released. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.discardPending();
    await this.running;
    await this.model.release();
  }

  /** Resolves when every queued frame has been processed (tests, orderly shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private discardPending(): void {
    this.queue = [];
    this.generation++;
    this.model.resetState();
  }

  private async drain(): Promise<void> {
    for (let frame = this.queue.shift(); frame; frame = this.queue.shift()) {
      if (frame.length === GATED_FRAME_SAMPLES) {
        // Silence, with no inference. The model's state is reset at the first of a run, so
        // the visitor's next words start it afresh, as at a call's start, rather than glued
        // to what it heard before the avatar's words.
        if (!this.inGatedRun) this.model.resetState();
        this.inGatedRun = true;
        this.heard(this.silence, 0);
        continue;
      }
      this.inGatedRun = false;
      const generation = this.generation;
      const started = this.now();
      let probability: number;
      try {
        probability = await this.model.process(frame);
        this.failures = 0;
      } catch (err) {
        this.onFailure(err);
        if (this.failed) return;
        continue;
      }
      if (generation !== this.generation) {
        // Paused or reset while this frame was in the model: its state belongs to audio
        // that is gone, so undo the state update it just made.
        this.model.resetState();
        continue;
      }
      this.inferMs.push(this.now() - started);
      this.heard(frame, probability);
    }
  }

  /** A frame and its speech probability, to the frame processor: its events go out. */
  private heard(frame: Float32Array, probability: number): void {
    this.frames++;
    for (const event of this.processor.process(frame, probability)) this.emit(event);
    this.maybeEmitStats();
  }

  private onFailure(err: unknown): void {
    this.failures++;
    const message = err instanceof Error ? err.message : String(err);
    if (this.failures >= MAX_CONSECUTIVE_FAILURES) {
      this.failed = true;
      this.queue = [];
      this.emit({ type: 'error', message: `voice detection stopped after ${this.failures} failures: ${message}` });
    } else {
      this.emit({ type: 'warning', message: `inference failed, frame skipped: ${message}` });
    }
  }

  private maybeEmitStats(): void {
    const now = this.now();
    if (now - this.lastStats < this.statsIntervalMs) return;
    const sorted = this.inferMs.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    this.emit({ type: 'stats', frames: this.frames, dropped: this.dropped, inferMsMedian: at(0.5), inferMsP95: at(0.95) });
    this.inferMs = [];
    this.lastStats = now;
  }
}

/** Realm-independent (a structured clone may come from another global's constructors). */
function isFloat32Array(data: unknown): data is Float32Array {
  return ArrayBuffer.isView(data) && Object.prototype.toString.call(data) === '[object Float32Array]';
}

function describe(data: unknown): string {
  if (ArrayBuffer.isView(data)) return `${data.constructor.name}(${(data as Float32Array).length})`;
  return data === null ? 'null' : typeof data;
}
