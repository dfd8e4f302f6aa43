import { describe, expect, it } from 'vitest';
import { StreamingResampler } from './resampler.ts';

function sine(freq: number, rate: number, length: number, amplitude = 0.5): Float32Array {
  return Float32Array.from({ length }, (_, i) => amplitude * Math.sin((2 * Math.PI * freq * i) / rate));
}

/** Feeds `input` in blocks of `blockSize` and concatenates the output. */
function run(resampler: StreamingResampler, input: Float32Array, blockSize = 128): Float32Array {
  const parts: number[] = [];
  for (let i = 0; i < input.length; i += blockSize) {
    parts.push(...resampler.process(input.subarray(i, i + blockSize)));
  }
  return Float32Array.from(parts);
}

function rms(x: Float32Array): number {
  return Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
}

/** Amplitude of the component at `freq` (single-bin DFT). */
function toneAmplitude(x: Float32Array, freq: number, rate: number): number {
  let re = 0;
  let im = 0;
  x.forEach((v, i) => {
    re += v * Math.cos((2 * Math.PI * freq * i) / rate);
    im -= v * Math.sin((2 * Math.PI * freq * i) / rate);
  });
  return (2 * Math.hypot(re, im)) / x.length;
}

/** Skips the filter's start-up transient (the silence assumed before the stream). */
const settled = (x: Float32Array) => x.subarray(200, x.length - 200);

describe('StreamingResampler', () => {
  it.each([48_000, 44_100, 22_050, 96_000])('produces 16 kHz output at the right rate from %i Hz', (rate) => {
    const seconds = 2;
    const out = run(new StreamingResampler(rate), sine(440, rate, rate * seconds));
    // The kernel's reach is held back at the end; the rest comes out in time.
    expect(out.length).toBeGreaterThan(16_000 * seconds - 40);
    expect(out.length).toBeLessThanOrEqual(16_000 * seconds);
  });

  it.each([48_000, 44_100, 8000])('keeps the frequency and level of a 1 kHz sine from %i Hz', (rate) => {
    const out = settled(run(new StreamingResampler(rate), sine(1000, rate, rate)));
    expect(toneAmplitude(out, 1000, 16_000)).toBeCloseTo(0.5, 2);
    // Nothing else: the residual after removing the 1 kHz tone is tiny.
    expect(toneAmplitude(out, 1100, 16_000)).toBeLessThan(0.005);
    // Zero crossings confirm the pitch independently of the DFT: 2 per cycle.
    let crossings = 0;
    for (let i = 1; i < out.length; i++) if ((out[i - 1] ?? 0) < 0 !== (out[i] ?? 0) < 0) crossings++;
    expect(crossings / 2 / (out.length / 16_000)).toBeCloseTo(1000, -1);
  });

  it('passes speech-band tones nearly unchanged and rejects tones that would alias', () => {
    const rate = 48_000;
    const gain = (freq: number) =>
      rms(settled(run(new StreamingResampler(rate), sine(freq, rate, rate / 2)))) / rms(sine(freq, rate, rate / 2));
    expect(gain(300)).toBeGreaterThan(0.98);
    expect(gain(4000)).toBeGreaterThan(0.98);
    // Flat up to 7.5 kHz: the VAD model weighs the top of the band (see resampler.ts).
    expect(gain(7000)).toBeGreaterThan(0.98);
    expect(gain(7500)).toBeGreaterThan(0.97);
    // 8.6, 9 and 12 kHz would fold to 7.4, 7 and 4 kHz: all down by more than 40 dB.
    expect(gain(8600)).toBeLessThan(0.01);
    expect(gain(9000)).toBeLessThan(0.01);
    expect(gain(12_000)).toBeLessThan(0.01);
  });

  it.each([1, 37, 128, 1000, 4800])('gives the same stream whatever the block size (%i)', (blockSize) => {
    const input = sine(700, 44_100, 44_100 / 2);
    const reference = run(new StreamingResampler(44_100), input, input.length);
    const chunked = run(new StreamingResampler(44_100), input, blockSize);
    expect(chunked.length).toBe(reference.length);
    const maxDiff = reference.reduce((m, v, i) => Math.max(m, Math.abs(v - (chunked[i] ?? Infinity))), 0);
    expect(maxDiff).toBe(0);
  });

  it('has no clicks at block boundaries (continuity of a slow sine)', () => {
    const out = settled(run(new StreamingResampler(48_000), sine(200, 48_000, 48_000)));
    const maxStep = out.reduce((m, v, i) => (i === 0 ? m : Math.max(m, Math.abs(v - (out[i - 1] ?? 0)))), 0);
    // The largest step of a 200 Hz, 0.5-amplitude sine at 16 kHz is 2π·200/16000·0.5 ≈ 0.039.
    expect(maxStep).toBeLessThan(0.041);
  });

  it('passes 16 kHz input through untouched', () => {
    const resampler = new StreamingResampler(16_000);
    const block = sine(440, 16_000, 128);
    expect(resampler.process(block)).toBe(block);
  });

  it('forgets history on reset', () => {
    const resampler = new StreamingResampler(48_000);
    const fresh = Array.from(resampler.process(sine(300, 48_000, 4800)));
    resampler.process(sine(5000, 48_000, 960));
    resampler.reset();
    expect(Array.from(resampler.process(sine(300, 48_000, 4800)))).toEqual(fresh);
  });

  it('rejects invalid rates', () => {
    expect(() => new StreamingResampler(0)).toThrow(RangeError);
    expect(() => new StreamingResampler(Number.NaN)).toThrow(RangeError);
  });
});
