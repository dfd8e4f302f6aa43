import { describe, expect, it } from 'vitest';
import { Framer } from './framer.ts';

/** A ramp makes every sample identify its position in the stream. */
function ramp(start: number, length: number): Float32Array {
  return Float32Array.from({ length }, (_, i) => start + i);
}

function collect(frameSize: number, blockSizes: number[]) {
  const frames: { frame: Float32Array; index: number }[] = [];
  const framer = new Framer(frameSize, (frame, index) => frames.push({ frame, index }));
  let fed = 0;
  for (const size of blockSizes) {
    framer.push(ramp(fed, size));
    fed += size;
  }
  return { frames, framer, fed };
}

describe('Framer', () => {
  it.each([1, 7, 42, 43, 128, 1000, 1535, 1536, 1537, 4096])(
    'cuts exact 1536-sample frames with no gap or overlap from blocks of %i',
    (blockSize) => {
      const total = 1536 * 5 + 100;
      const blocks = Array.from({ length: Math.ceil(total / blockSize) }, () => blockSize);
      const { frames, framer, fed } = collect(1536, blocks);
      expect(frames).toHaveLength(Math.floor(fed / 1536));
      expect(framer.pending).toBe(fed % 1536);
      frames.forEach(({ frame, index }, n) => {
        expect(index).toBe(n);
        expect(frame).toHaveLength(1536);
        expect(frame[0]).toBe(n * 1536);
        expect(frame[1535]).toBe(n * 1536 + 1535);
        // Continuity inside the frame: consecutive stream positions.
        expect(frame.every((v, i) => v === n * 1536 + i)).toBe(true);
      });
    },
  );

  it('handles the alternating 42/43 block sizes of a 48 kHz resampler', () => {
    const blocks = Array.from({ length: 300 }, (_, i) => (i % 3 === 2 ? 42 : 43));
    const { frames, fed } = collect(1536, blocks);
    expect(frames).toHaveLength(Math.floor(fed / 1536));
    expect(frames.at(-1)?.frame[1535]).toBe(frames.length * 1536 - 1);
  });

  it('emits several frames from one large block and hands out distinct arrays', () => {
    const { frames } = collect(4, [10]);
    expect(frames.map((f) => Array.from(f.frame))).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(frames[0]?.frame.buffer).not.toBe(frames[1]?.frame.buffer);
  });

  it('ignores empty blocks', () => {
    const { frames, framer } = collect(4, [0, 3, 0, 1, 0]);
    expect(frames).toHaveLength(1);
    expect(framer.pending).toBe(0);
  });

  it('drops the partial frame on reset but keeps counting frame indexes', () => {
    const frames: { first: number; index: number }[] = [];
    const framer = new Framer(4, (frame, index) => frames.push({ first: frame[0] ?? -1, index }));
    framer.push(ramp(0, 6));
    framer.reset();
    expect(framer.pending).toBe(0);
    framer.push(ramp(100, 4));
    expect(frames).toEqual([
      { first: 0, index: 0 },
      { first: 100, index: 1 },
    ]);
    expect(framer.framesEmitted).toBe(2);
  });

  it('rejects a nonsensical frame size', () => {
    expect(() => new Framer(0, () => {})).toThrow(RangeError);
    expect(() => new Framer(1.5, () => {})).toThrow(RangeError);
  });
});
