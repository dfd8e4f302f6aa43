/**
 * Cuts a stream of arbitrary-sized blocks (the resampler yields 42 or 43 samples per
 * 128-sample render quantum at 48 kHz) into exact fixed-size frames: Silero's legacy model
 * is fed 1536 samples (96 ms at 16 kHz) at a time, and the frame processor counts frames.
 */
export type FrameSink = (frame: Float32Array, index: number) => void;

export class Framer {
  readonly frameSize: number;
  private current: Float32Array;
  private filled = 0;
  private nextIndex = 0;

  constructor(frameSize: number, private readonly onFrame: FrameSink) {
    if (!Number.isInteger(frameSize) || frameSize < 1) throw new RangeError(`invalid frame size ${frameSize}`);
    this.frameSize = frameSize;
    this.current = new Float32Array(frameSize);
  }

  /** Samples waiting for the next frame. */
  get pending(): number {
    return this.filled;
  }

  /** Index the next emitted frame will carry (frames since creation; a reset keeps counting). */
  get framesEmitted(): number {
    return this.nextIndex;
  }

  /**
   * Copies `samples` in; calls `onFrame` synchronously for each completed frame. Every
   * frame is a fresh array the receiver owns, so it can be transferred to another thread.
   */
  push(samples: Float32Array): void {
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(this.frameSize - this.filled, samples.length - offset);
      this.current.set(samples.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.frameSize) {
        const frame = this.current;
        this.current = new Float32Array(this.frameSize);
        this.filled = 0;
        this.onFrame(frame, this.nextIndex++);
      }
    }
  }

  /** Drops the partial frame, so audio from before a mute is never glued to audio after it. */
  reset(): void {
    this.filled = 0;
  }
}
