/**
 * Speech for the avatar: espeak-ng synthesizes the text (fed on stdin, so no text can ever be
 * taken for a command-line option), and its 22.05 kHz WAV is resampled to the pacer's 48 kHz.
 *
 * Every question a visitor sends starts a synthesis, and a visitor can send hundreds at once:
 * at most MAX_RUNNING espeak-ng processes run at a time (one per core: more only share the
 * same CPUs), and a synthesis whose reply was interrupted stops: its espeak-ng is killed, or
 * it leaves the queue without ever starting one.
 *
 * The queue is shared fairly among rooms: each room (each `queue` key) waits in a line of its
 * own, at most MAX_WAITING deep (beyond that its synthesis fails at once and its text goes out
 * silently), and a freed process goes to the next room in turn that has one waiting. A room
 * that floods the stand-in with questions so waits behind its own; another room's reply waits
 * at most for one synthesis of each busy room, never for the flood (before, one line of 32
 * for everybody: three addresses kept it full and every other room's replies went silent).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { availableParallelism } from 'node:os';
import { createLogger } from '../log.ts';
import { spawnTracked, stopChild } from './children.ts';

const log = createLogger('media');

/** Longer replies are cut at a word boundary: a stand-in reply never needs minutes of speech. */
export const MAX_TTS_CHARS = 1000;
const MAX_WAV_BYTES = 32 * 1024 * 1024;
const SYNTH_TIMEOUT_MS = 15_000;
const VOICES = { en: 'en-us', zh: 'cmn' } as const;
export const MAX_RUNNING = Math.max(2, availableParallelism());
/** Syntheses one room may have waiting. A visitor's reply needs one at a time. */
export const MAX_WAITING = 4;

/**
 * The interruption of the reply a synthesis is for. MediaPipeline.speak takes no signal, so
 * the reply player hands it down this way: whatever synthesis starts inside
 * withSynthesisSignal(signal, fn) stops when `signal` aborts.
 */
const replySignal = new AsyncLocalStorage<AbortSignal>();

export function withSynthesisSignal<T>(signal: AbortSignal, fn: () => T): T {
  return replySignal.run(signal, fn);
}

class SynthesisAborted extends Error {}

let running = 0;
/** Waiting syntheses by queue (room), in arrival order; the Map's order is the rooms' turn. */
const waiting = new Map<string, (() => void)[]>();

function leaveLine(queue: string, grant: () => void): void {
  const line = waiting.get(queue);
  const at = line?.indexOf(grant) ?? -1;
  if (!line || at < 0) return;
  line.splice(at, 1);
  if (line.length === 0) waiting.delete(queue);
}

/** Resolves when a process slot is ours; rejects when this queue's line is full or `signal` aborts first. */
function takeSlot(queue: string, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new SynthesisAborted());
  if (running < MAX_RUNNING && waiting.size === 0) {
    running++;
    return Promise.resolve();
  }
  const line = waiting.get(queue) ?? [];
  if (line.length >= MAX_WAITING) return Promise.reject(new Error(`speech synthesis is busy (${MAX_WAITING} waiting for this room)`));
  return new Promise((resolve, reject) => {
    const grant = (): void => {
      signal?.removeEventListener('abort', onAbort);
      running++;
      resolve();
    };
    const onAbort = (): void => {
      leaveLine(queue, grant);
      reject(new SynthesisAborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    line.push(grant);
    waiting.set(queue, line);
  });
}

/** The slot goes to the first waiting synthesis of the room whose turn it is; that room then goes to the back. */
function giveSlot(): void {
  running--;
  while (running < MAX_RUNNING && waiting.size > 0) {
    const [queue, line] = waiting.entries().next().value as [string, (() => void)[]];
    waiting.delete(queue);
    const grant = line.shift();
    if (line.length > 0) waiting.set(queue, line);
    grant?.();
  }
}

/** espeak-ng processes running now, and syntheses waiting for one (tests). */
export function synthesisLoad(): { running: number; waiting: number } {
  let queued = 0;
  for (const line of waiting.values()) queued += line.length;
  return { running, waiting: queued };
}

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

async function runEspeak(text: string, lang: 'en' | 'zh', queue: string, signal: AbortSignal | undefined): Promise<Buffer> {
  await takeSlot(queue, signal);
  if (signal?.aborted) {
    giveSlot();
    throw new SynthesisAborted();
  }
  const child = spawnTracked(espeakPath(), ['--stdin', '--stdout', '-v', VOICES[lang], '-s', '165']);
  // The slot is the process: it is given back when espeak-ng is gone, not when we stop waiting for it.
  let slotHeld = true;
  const releaseSlot = (): void => {
    if (!slotHeld) return;
    slotHeld = false;
    giveSlot();
  };
  child.once('exit', releaseSlot);
  child.once('error', releaseSlot);
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
    const onAbort = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new SynthesisAborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const forget = (): void => signal?.removeEventListener('abort', onAbort);
    child.once('exit', forget);
    child.once('error', forget);
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

/**
 * Synthesizes `text` as 16-bit mono PCM at `sampleRate`. Empty text gives no samples, and so
 * does a synthesis interrupted (see withSynthesisSignal): its reply wants no sound any more.
 * `queue`: whose line it waits in when every process is busy (the room's id).
 */
export async function synthesize(text: string, lang: 'en' | 'zh', sampleRate = 48_000, queue = ''): Promise<Int16Array> {
  const clean = sanitizeSpeechText(text);
  if (!clean) return new Int16Array(0);
  const started = performance.now();
  let output: Buffer;
  try {
    output = await runEspeak(clean, lang, queue, replySignal.getStore());
  } catch (err) {
    if (err instanceof SynthesisAborted) return new Int16Array(0);
    throw err;
  }
  const wav = parseWav(output);
  const pcm = resample(wav.samples, wav.sampleRate, sampleRate);
  log.info('speech synthesized', { lang, chars: clean.length, ms: Math.round(performance.now() - started), audioMs: Math.round((pcm.length / sampleRate) * 1000) });
  return pcm;
}
