import { describe, expect, it } from 'vitest';
import { trackedChildPids } from './children.ts';
import { MAX_TTS_CHARS, parseWav, resample, sanitizeSpeechText, synthesize, withSynthesisSignal } from './tts.ts';

const rms = (pcm: Int16Array): number => Math.sqrt(pcm.reduce((e, s) => e + s * s, 0) / Math.max(1, pcm.length)) / 32768;

describe('synthesize (espeak-ng)', () => {
  it('speaks English as non-silent 48 kHz PCM of a plausible length', async () => {
    const pcm = await synthesize('Our flagship store is at one Harbour Road. It is open every day.', 'en');
    const seconds = pcm.length / 48_000;
    expect(seconds).toBeGreaterThan(2);
    expect(seconds).toBeLessThan(8);
    expect(rms(pcm)).toBeGreaterThan(0.02);
  });

  it('speaks Chinese with the Mandarin voice', async () => {
    const pcm = await synthesize('你好，欢迎光临。', 'zh');
    expect(pcm.length / 48_000).toBeGreaterThan(0.8);
    expect(rms(pcm)).toBeGreaterThan(0.02);
  });

  it('speaks text that looks like a command-line option instead of obeying it', async () => {
    const pcm = await synthesize('--version', 'en');
    expect(pcm.length).toBeGreaterThan(48_000 * 0.3);
  });

  it('gives no samples for text with nothing to say', async () => {
    expect((await synthesize(' \n\t ', 'en')).length).toBe(0);
  });

  it('an interrupted synthesis kills its espeak-ng (SIGKILL) and gives no samples', async () => {
    // The espeak-ng is stopped (SIGSTOP) as soon as it runs, so it can never finish by itself:
    // only a SIGKILL makes it go (SIGTERM stays pending on a stopped process). No timing involved.
    const before = new Set(trackedChildPids());
    const interruption = new AbortController();
    const pending = withSynthesisSignal(interruption.signal, () => synthesize('the avatar keeps talking. '.repeat(30), 'en'));
    let pid: number | undefined;
    while (pid === undefined) {
      pid = trackedChildPids().find((p) => !before.has(p));
      if (pid === undefined) await new Promise((r) => setImmediate(r));
    }
    process.kill(pid, 'SIGSTOP');
    interruption.abort();
    const pcm = await pending;
    expect(pcm.length).toBe(0);
    await expect.poll(() => trackedChildPids().includes(pid)).toBe(false);
  });
});

describe('speech text and audio helpers', () => {
  it('strips control characters and bounds the length at a word boundary', () => {
    expect(sanitizeSpeechText('a\u0000b\u001b[31m  c\n')).toBe('a b [31m c');
    const long = sanitizeSpeechText('word '.repeat(1000));
    expect(long.length).toBeLessThanOrEqual(MAX_TTS_CHARS);
    expect(long.endsWith('word')).toBe(true);
  });

  it('parses a WAV whose sizes were never filled in, as espeak-ng writes to a pipe', () => {
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'ascii');
    header.writeUInt32LE(0x7ffff000, 4);
    header.write('WAVEfmt ', 8, 'ascii');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(22050, 24);
    header.writeUInt32LE(44100, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36, 'ascii');
    header.writeUInt32LE(0x7ffff000, 40);
    const body = Buffer.alloc(8);
    body.writeInt16LE(1000, 0);
    body.writeInt16LE(-1000, 6);
    const wav = parseWav(Buffer.concat([header, body]));
    expect(wav.sampleRate).toBe(22050);
    expect([...wav.samples]).toEqual([1000, 0, 0, -1000]);
  });

  it('rejects data that is not a WAV file', () => {
    expect(() => parseWav(Buffer.from('espeak-ng: error'))).toThrow(/not a WAV/);
  });

  it('resamples 22.05 kHz to 48 kHz keeping duration and shape', () => {
    const input = Int16Array.from({ length: 22050 }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * 200 * i) / 22050)));
    const out = resample(input, 22050, 48000);
    expect(out.length).toBe(48000);
    expect(Math.abs(rms(out) - rms(input))).toBeLessThan(0.005);
  });
});
