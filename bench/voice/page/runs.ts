/** What one VAD run records in the page, the same shape for ours and for vad-web. */
export type VadName = 'ours' | 'vadweb';

export interface Segment {
  startFrame: number;
  /** Frame at which the segment closed; null while it is still open at stop. */
  endFrame: number | null;
  misfire: boolean;
  /** performance.now() on the main thread when each event arrived. */
  startAt: number;
  endAt: number | null;
}

/** Our worker's once-a-second report (onStats). */
export interface WorkerStats {
  at: number;
  frames: number;
  dropped: number;
  inferMsMedian: number;
  inferMsP95: number;
}

export interface VadRun {
  name: VadName;
  /** start() called → model loaded and capture wired (performance.now() ms). */
  startCalledAt: number;
  readyAt: number;
  segments: Segment[];
  /** Frames run through the model (ours: the last stats report's count). */
  frames: number;
  /** vad-web: per-frame inference time measured around its model call, on the main thread. */
  inferMs: number[];
  /** vad-web: performance.now() at which each frame's result reached its callback. */
  frameAt: number[];
  /** ours: the worker's per-second reports. */
  stats: WorkerStats[];
  /** PCM chunks that reached the main thread (ours: the recognizer feed; vad-web: none). */
  pcmChunks: number;
  errors: string[];
}

export interface RunningVad {
  readonly run: VadRun;
  stop(): Promise<VadRun>;
}

export function newRun(name: VadName, startCalledAt: number): VadRun {
  return { name, startCalledAt, readyAt: 0, segments: [], frames: 0, inferMs: [], frameAt: [], stats: [], pcmChunks: 0, errors: [] };
}

/** Records a segment opening at `frame`. */
export function segmentStarted(run: VadRun, frame: number): void {
  run.segments.push({ startFrame: frame, endFrame: null, misfire: false, startAt: performance.now(), endAt: null });
}

/** Closes the open segment (or records a whole one if the start was missed). */
export function segmentEnded(run: VadRun, startFrame: number, endFrame: number, misfire: boolean): void {
  const now = performance.now();
  const open = run.segments.at(-1);
  if (open && open.endFrame === null) {
    Object.assign(open, { startFrame, endFrame, misfire, endAt: now });
  } else {
    run.segments.push({ startFrame, endFrame, misfire, startAt: now, endAt: now });
  }
}
