/**
 * Speech for the avatar: espeak-ng synthesizes the text (fed on stdin, so no text can ever be
 * taken for a command-line option), and its 22.05 kHz WAV is resampled to the pacer's 48 kHz.
 */
import { createLogger } from '../log.ts';
import { spawnTracked, stopChild } from './children.ts';

const log = createLogger('media');

/** Longer replies are cut at a word boundary: a stand-in reply never needs minutes of speech. */
export const MAX_TTS_CHARS = 1000;
const MAX_WAV_BYTES = 32 * 1024 * 1024;
const SYNTH_TIMEOUT_MS = 15_000;
const VOICES = { en: 'en-us', zh: 'cmn' } as const;

export function espeakPath(): string {
  return process.env.ESPEAK_PATH ?? 'espeak-ng';
}

/** Control characters out, whitespace folded, length bounded. */
export function sanitizeSpeechText(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (clean.length <= MAX_TTS_CHARS) return clean;
  const cut = clean.slice(0, MAX_TTS_CHARS);
  const space = cut.lastIndexOf(' ');
  return space > MAX_TTS_CHARS / 2 ? cut.slice(0, space) : cut;
}

export interface Pcm {
  sampleRate: number;
  samples: Int16Array;
}

/**
 * Reads 16-bit mono PCM out of a WAV file. espeak-ng writing to a pipe cannot go back to fill
 * in the sizes, so the data chunk's declared length is trusted only when it fits.
 */
export function parseWav(wav: Buffer): Pcm {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a WAV file');
  }
  let offset = 12;
  let sampleRate = 0;
  let channels = 0;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      const format = wav.readUInt16LE(body);
      channels = wav.readUInt16LE(body + 2);
      sampleRate = wav.readUInt32LE(body + 4);
      const bits = wav.readUInt16LE(body + 14);
      if (format !== 1 || bits !== 16) throw new Error(`unsupported WAV format ${format}/${bits}-bit`);
    } else if (id === 'data') {
      if (!sampleRate || channels < 1) throw new Error('WAV data before fmt');
      const end = Math.min(wav.length, body + size);
      const frames = Math.floor((end - body) / (2 * channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = wav.readInt16LE(body + i * 2 * channels);
      return { sampleRate, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV without data');
}

/** Linear-interpolation resampler: plenty for a formant synthesizer's bandwidth. */
export function resample(input: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return input;
  const out = new Int16Array(Math.floor((input.length * to) / from));
  const step = from / to;
  for (let i = 0; i < out.length; i++) {
    const pos = i * step;
    const j = Math.floor(pos);
    const a = input[j] ?? 0;
    const b = input[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (pos - j));
  }
  return out;
}

function runEspeak(text: string, lang: 'en' | 'zh'): Promise<Buffer> {
  const child = spawnTracked(espeakPath(), ['--stdin', '--stdout', '-v', VOICES[lang], '-s', '165']);
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stopChild(child, 200);
      reject(new Error(message));
    };
    const timer = setTimeout(() => fail('espeak-ng timed out'), SYNTH_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_WAV_BYTES) return fail('espeak-ng output too large');
      parts.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.once('error', (err) => fail(`espeak-ng failed to start: ${err.message}`));
    child.once('close', (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(parts));
      else reject(new Error(`espeak-ng exited with ${code}: ${stderr.trim()}`));
    });
    child.stdin.end(text + '\n');
  });
}

/** Synthesizes `text` as 16-bit mono PCM at `sampleRate`. Empty text gives no samples. */
export async function synthesize(text: string, lang: 'en' | 'zh', sampleRate = 48_000): Promise<Int16Array> {
  const clean = sanitizeSpeechText(text);
  if (!clean) return new Int16Array(0);
  const started = performance.now();
  const wav = parseWav(await runEspeak(clean, lang));
  const pcm = resample(wav.samples, wav.sampleRate, sampleRate);
  log.info('speech synthesized', { lang, chars: clean.length, ms: Math.round(performance.now() - started), audioMs: Math.round((pcm.length / sampleRate) * 1000) });
  return pcm;
}
