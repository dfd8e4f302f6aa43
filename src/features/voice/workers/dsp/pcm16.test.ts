import { describe, expect, it } from 'vitest';
import { floatToPcm16 } from './pcm16.ts';

describe('floatToPcm16', () => {
  it('maps full scale to the Int16 range and keeps the sign', () => {
    expect(Array.from(floatToPcm16(Float32Array.from([0, 1, -1, 0.5, -0.5])))).toEqual([0, 32767, -32768, 16384, -16384]);
  });

  it('clips out-of-range samples and silences NaN instead of wrapping', () => {
    expect(Array.from(floatToPcm16(Float32Array.from([1.7, -3, Number.NaN, Infinity])))).toEqual([32767, -32768, 0, 32767]);
  });

  it('returns a new array of the same length', () => {
    const input = new Float32Array(1536);
    const pcm = floatToPcm16(input);
    expect(pcm).toBeInstanceOf(Int16Array);
    expect(pcm).toHaveLength(1536);
  });
});
