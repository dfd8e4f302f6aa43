/**
 * Streaming sample-rate converter for the capture worklet: AudioContext rate (48 kHz or
 * 44.1 kHz on phones, sometimes already 16 kHz) → 16 kHz, fed 128-sample render quanta.
 *
 * Why a windowed-sinc low-pass and not linear interpolation or plain averaging: the same
 * 16 kHz signal feeds the speech recognizer, not only the VAD. Linear interpolation does
 * not filter at all, so every fricative above 8 kHz ("s", "sh") folds back into the band
 * the recognizer listens to; vad-web's box average has its first null at 16 kHz and only
 * about -4 dB at 8 kHz.
 *
 * Why the cutoff sits at 8 kHz (-6 dB there) with 24 zero crossings per side, flat to
 * 7.5 kHz, -13 dB at 8.2 kHz and more than 40 dB down from 8.6 kHz: Silero looks at log
 * magnitudes, so it notices when the top of the band is missing. A cutoff at 7.2 kHz
 * (0.45, as Chromium's own resampler uses) lowered its speech probabilities at word
 * onsets enough to start segments up to 3 frames later than on the same audio recorded
 * at 16 kHz; this cutoff cuts the total segment error against that reference by about
 * two thirds, 28 to 10 frames over 60 segments (espeak fixtures and 22 kHz espeak
 * speech: bench/vad-resampler.mjs).
 * What aliases is 8-8.6 kHz into 7.4-8 kHz, attenuated 13-40 dB. The cost is ~140
 * multiply-adds per output sample at 48 kHz (≈2.3 M/s): noise on the audio thread even on
 * low-end phones, because the taps are precomputed per phase (polyphase) and the inner
 * loop is a plain dot product.
 *
 * The position of the next output sample is kept as an exact rational (integer index +
 * numerator over the output rate), so there is no drift over long calls and the result
 * does not depend on how the input is cut into blocks.
 */

/** Cutoff (the -6 dB point) as a fraction of the lower of the two rates: 0.5 is its Nyquist. */
const CUTOFF_RATIO = 0.5;
const ZERO_CROSSINGS = 24;
/**
 * Cap on precomputed phases. Common rates need few (48 kHz: 1, 44.1 kHz: 160, 22.05 kHz:
 * 320); an odd rate is rounded down to the nearest of 512 phases, an error below 1/512 of
 * an input sample.
 */
const MAX_PHASES = 512;

export class StreamingResampler {
  readonly inputRate: number;
  readonly outputRate: number;
  private readonly passthrough: boolean;
  /** Input samples per output sample as q + r / outputRate. */
  private readonly stepInt: number;
  private readonly stepRem: number;
  private readonly reach: number;
  private readonly taps: number;
  private readonly phases: number;
  /** Tap weights: phase p, tap j at coef[p * taps + j]. */
  private readonly coef: Float32Array;
  private buf: Float32Array;
  private bufLen = 0;
  private pos = 0;
  private posRem = 0;
  private out: Float32Array;

  constructor(inputRate: number, outputRate = 16_000) {
    if (!Number.isFinite(inputRate) || !Number.isFinite(outputRate) || inputRate < 1 || outputRate < 1) {
      throw new RangeError(`invalid sample rates ${inputRate} → ${outputRate}`);
    }
    this.inputRate = Math.round(inputRate);
    this.outputRate = Math.round(outputRate);
    this.passthrough = this.inputRate === this.outputRate;
    this.stepInt = Math.floor(this.inputRate / this.outputRate);
    this.stepRem = this.inputRate % this.outputRate;
    // Cycles per input sample; the kernel is stretched when decimating so it also
    // band-limits to the output's Nyquist.
    const cutoff = (CUTOFF_RATIO * Math.min(this.inputRate, this.outputRate)) / this.inputRate;
    const radius = ZERO_CROSSINGS / (2 * cutoff);
    this.reach = Math.ceil(radius);
    this.taps = 2 * this.reach;
    this.phases = Math.min(this.outputRate / gcd(this.inputRate, this.outputRate), MAX_PHASES);
    this.coef = buildPolyphase(cutoff, radius, this.reach, this.phases);
    this.buf = new Float32Array(4 * this.reach + 1024);
    this.out = new Float32Array(512);
    this.reset();
  }

  /** Forgets all history, as if the stream started again (used after a mute). */
  reset(): void {
    // `reach` zeros stand for the silence before the stream, so the first output sample
    // is centred on the first input sample.
    this.buf.fill(0, 0, this.reach);
    this.bufLen = this.reach;
    this.pos = this.reach;
    this.posRem = 0;
  }

  /**
   * Converts one block. The returned array is a view into an internal buffer, valid
   * until the next call (in passthrough mode it is `input` itself): copy it if you keep it.
   */
  process(input: Float32Array): Float32Array {
    if (this.passthrough) return input;
    this.append(input);
    const maxOut = Math.ceil(input.length / (this.stepInt + this.stepRem / this.outputRate)) + 2;
    if (this.out.length < maxOut) this.out = new Float32Array(maxOut * 2);
    const { buf, coef, taps, reach, phases, out, outputRate } = this;
    let n = 0;
    while (this.pos + reach < this.bufLen) {
      const phase = Math.floor((this.posRem * phases) / outputRate);
      const base = this.pos - reach + 1;
      const row = phase * taps;
      let acc = 0;
      for (let j = 0; j < taps; j++) acc += buf[base + j]! * coef[row + j]!;
      out[n++] = acc;
      this.pos += this.stepInt;
      this.posRem += this.stepRem;
      if (this.posRem >= outputRate) {
        this.posRem -= outputRate;
        this.pos += 1;
      }
    }
    this.compact();
    return out.subarray(0, n);
  }

  private append(input: Float32Array): void {
    const needed = this.bufLen + input.length;
    if (needed > this.buf.length) {
      const grown = new Float32Array(Math.max(needed, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.bufLen));
      this.buf = grown;
    }
    this.buf.set(input, this.bufLen);
    this.bufLen = needed;
  }

  /** Drops input no future output sample can reach, keeping the buffer small. */
  private compact(): void {
    const keepFrom = this.pos - this.reach + 1;
    if (keepFrom <= 0) return;
    this.buf.copyWithin(0, keepFrom, this.bufLen);
    this.bufLen -= keepFrom;
    this.pos -= keepFrom;
  }
}

/**
 * Hann-windowed sinc taps for each fractional phase. Tap j of an output sample at
 * position pos + frac reads input pos - reach + 1 + j, at distance frac + reach - 1 - j.
 * Each phase is normalised to sum 1, so the DC gain is exactly 1 at every phase (the
 * truncated, windowed kernel alone only approximates that).
 */
function buildPolyphase(cutoff: number, radius: number, reach: number, phases: number): Float32Array {
  const taps = 2 * reach;
  const coef = new Float32Array(phases * taps);
  for (let p = 0; p < phases; p++) {
    const frac = p / phases;
    const row = Array.from({ length: taps }, (_, j) => kernel(frac + reach - 1 - j, cutoff, radius));
    const sum = row.reduce((a, b) => a + b, 0);
    coef.set(row.map((w) => w / sum), p * taps);
  }
  return coef;
}

function kernel(distance: number, cutoff: number, radius: number): number {
  const d = Math.abs(distance);
  if (d >= radius) return 0;
  const x = 2 * cutoff * d;
  const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
  return sinc * 0.5 * (1 + Math.cos((Math.PI * d) / radius));
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
