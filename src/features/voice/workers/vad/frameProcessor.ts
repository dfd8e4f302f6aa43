/**
 * The voice-activity state machine: per-frame speech probabilities in, speech segments
 * out. Plain and synchronous (inference happens outside), so it is tested on synthetic
 * probability sequences and runs unchanged in the worker.
 *
 * Semantics, frame by frame (i = index of the frame just processed):
 * - idle: the last `preSpeechPadFrames` frames are kept as pre-speech padding. A frame with
 *   p ≥ positive starts a candidate segment: `speechStart` at i.
 * - in a segment: every frame is kept. p ≥ positive counts as a speech frame and clears
 *   the redemption counter; p < negative increments it; anything in between (hysteresis)
 *   does neither. When the counter reaches `redemptionFrames`, the segment closes at i:
 *   `speechEnd` with the audio (padding + segment) if it had ≥ `minSpeechFrames` speech
 *   frames, else `misfire`.
 */
export interface VadThresholds {
  positiveSpeechThreshold: number;
  negativeSpeechThreshold: number;
}

export interface FrameProcessorOptions extends VadThresholds {
  minSpeechFrames: number;
  preSpeechPadFrames: number;
  redemptionFrames: number;
  /** Bounds memory: a segment this long is closed as if speech had ended. */
  maxSpeechFrames: number;
  frameSamples: number;
}

/**
 * The values of docs/requirements.md R109, plus our choices:
 * - redemptionFrames 8 (≈768 ms): pauses between words and short breaths last 200–500 ms,
 *   so 8 frames rarely split a sentence; the recognizer's own segmentation silence is
 *   500–1000 ms, so ending much later would only delay sending what it already has.
 * - maxSpeechFrames 625 (60 s): a hands-free call with a TV in the background must not
 *   grow one segment without limit (6 KB per frame).
 */
export const DEFAULT_FRAME_PROCESSOR_OPTIONS: Readonly<FrameProcessorOptions> = {
  positiveSpeechThreshold: 0.9,
  negativeSpeechThreshold: 0.65,
  minSpeechFrames: 5,
  preSpeechPadFrames: 15,
  redemptionFrames: 8,
  maxSpeechFrames: 625,
  frameSamples: 1536,
};

export interface SegmentBounds {
  /** Frame whose probability started the candidate (where speechStart fired). */
  startFrame: number;
  /** Frame at which the segment closed (where speechEnd or misfire fired). */
  endFrame: number;
  /** Frames with p ≥ positive inside the segment. */
  speechFrames: number;
}

export type FrameEvent =
  | { type: 'speechStart'; frame: number }
  | (SegmentBounds & { type: 'speechEnd'; audio: Float32Array; audioStartFrame: number })
  | (SegmentBounds & { type: 'misfire' });

export function validateThresholds(t: VadThresholds): void {
  const { positiveSpeechThreshold: pos, negativeSpeechThreshold: neg } = t;
  if (!(pos >= 0 && pos <= 1) || !(neg >= 0 && neg <= pos)) {
    throw new RangeError(`invalid VAD thresholds: need 0 ≤ negative (${neg}) ≤ positive (${pos}) ≤ 1`);
  }
}

function validateOptions(o: FrameProcessorOptions): void {
  validateThresholds(o);
  const counts = ['minSpeechFrames', 'preSpeechPadFrames', 'redemptionFrames', 'maxSpeechFrames', 'frameSamples'] as const;
  for (const key of counts) {
    if (!Number.isInteger(o[key]) || o[key] < (key === 'preSpeechPadFrames' ? 0 : 1)) {
      throw new RangeError(`invalid VAD option ${key}: ${o[key]}`);
    }
  }
}

export class FrameProcessor {
  private options: FrameProcessorOptions;
  private paused = false;
  private nextFrame = 0;
  /** Kept frames: padding while idle, padding + segment while in a segment. */
  private frames: Float32Array[] = [];
  private segment: { startFrame: number; audioStartFrame: number; speechFrames: number; redemption: number } | null =
    null;

  constructor(options: Partial<FrameProcessorOptions> = {}) {
    this.options = { ...DEFAULT_FRAME_PROCESSOR_OPTIONS, ...options };
    validateOptions(this.options);
  }

  get settings(): Readonly<FrameProcessorOptions> {
    return this.options;
  }

  /** Index the next processed frame will get. */
  get frameIndex(): number {
    return this.nextFrame;
  }

  get inSegment(): boolean {
    return this.segment !== null;
  }

  /** Takes effect from the next frame; the open segment, if any, continues. */
  setOptions(update: Partial<FrameProcessorOptions>): void {
    const next = { ...this.options, ...update };
    validateOptions(next);
    this.options = next;
  }

  process(frame: Float32Array, probability: number): FrameEvent[] {
    if (this.paused) return [];
    if (frame.length !== this.options.frameSamples) {
      throw new RangeError(`frame of ${frame.length} samples, expected ${this.options.frameSamples}`);
    }
    const index = this.nextFrame++;
    // A NaN from a broken model must not look like speech or silence forever.
    const p = Number.isFinite(probability) ? probability : 0;
    const o = this.options;
    const events: FrameEvent[] = [];
    this.frames.push(frame);
    if (!this.segment) {
      if (p >= o.positiveSpeechThreshold) {
        this.segment = { startFrame: index, audioStartFrame: index - (this.frames.length - 1), speechFrames: 1, redemption: 0 };
        events.push({ type: 'speechStart', frame: index });
      } else if (this.frames.length > o.preSpeechPadFrames) {
        this.frames.splice(0, this.frames.length - o.preSpeechPadFrames);
      }
      return events;
    }
    const seg = this.segment;
    if (p >= o.positiveSpeechThreshold) {
      seg.speechFrames++;
      seg.redemption = 0;
    } else if (p < o.negativeSpeechThreshold) {
      seg.redemption++;
    }
    const segmentFrames = index - seg.startFrame + 1;
    if (seg.redemption >= o.redemptionFrames || segmentFrames >= o.maxSpeechFrames) {
      events.push(this.close(index));
    }
    return events;
  }

  /**
   * Mute. An open segment is abandoned and reported as a misfire, so whoever showed
   * "listening" on speechStart always gets a closing event.
   */
  pause(): FrameEvent[] {
    if (this.paused) return [];
    this.paused = true;
    const events: FrameEvent[] = [];
    if (this.segment) {
      const { startFrame, speechFrames } = this.segment;
      events.push({ type: 'misfire', startFrame, endFrame: this.nextFrame - 1, speechFrames });
    }
    this.clear();
    return events;
  }

  resume(): void {
    this.paused = false;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Drops padding and any open segment silently; frame indexes keep counting. */
  reset(): void {
    this.clear();
  }

  private clear(): void {
    this.frames = [];
    this.segment = null;
  }

  private close(endFrame: number): FrameEvent {
    const seg = this.segment;
    const frames = this.frames;
    this.clear();
    if (!seg) throw new Error('close() without a segment');
    const bounds = { startFrame: seg.startFrame, endFrame, speechFrames: seg.speechFrames };
    if (seg.speechFrames < this.options.minSpeechFrames) return { type: 'misfire', ...bounds };
    const audio = new Float32Array(frames.reduce((n, f) => n + f.length, 0));
    frames.reduce((offset, f) => (audio.set(f, offset), offset + f.length), 0);
    return { type: 'speechEnd', ...bounds, audio, audioStartFrame: seg.audioStartFrame };
  }
}
