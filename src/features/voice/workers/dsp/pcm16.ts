/**
 * Float samples in [-1, 1] → 16-bit signed PCM, the recognizer's input format (16 kHz,
 * 16-bit, mono; docs/requirements.md R110). Out-of-range samples (a hot AGC) are clipped instead of
 * wrapping around, which would turn a loud peak into a full-scale click.
 */
export function floatToPcm16(samples: Float32Array): Int16Array {
  const pcm = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const clipped = s >= 1 ? 1 : s <= -1 ? -1 : s === s ? s : 0;
    pcm[i] = clipped < 0 ? Math.round(clipped * 0x8000) : Math.round(clipped * 0x7fff);
  }
  return pcm;
}
