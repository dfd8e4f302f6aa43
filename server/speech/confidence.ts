/**
 * Whether a grammar hypothesis explains the utterance. A small grammar always finds its
 * closest sentence, and pocketsphinx pads it with silence and filler words: "what is the
 * weather like tomorrow" comes out as "what is new" followed by a long "<sil>". Loud audio
 * inside those filler segments is speech the hypothesis does not account for, so too much
 * of it means the grammar result is not to be trusted and free recognition takes over.
 */
import { frameEnergyDb } from './endpointer.ts';

export interface HypSegment {
  word: string;
  /** First and one-past-last 10 ms frame. */
  start: number;
  end: number;
}

const FRAME = 160; // 10 ms at 16 kHz, pocketsphinx's default frame rate
/** Speech left unexplained beyond this (in frames) rejects the hypothesis. */
export const MAX_UNEXPLAINED_FRAMES = 30;

export function isFiller(word: string): boolean {
  return /^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(word);
}

/** Parses one -hypseg line: "utt S 0 T -1 A -1 L 0 <sf ascr lscr word>... endframe". */
export function parseHypseg(line: string): HypSegment[] {
  const tokens = line.trim().split(/\s+/);
  const segments: HypSegment[] = [];
  const body = tokens.slice(9);
  for (let i = 0; i + 4 < body.length; i += 4) {
    const start = Number(body[i]);
    const word = body[i + 3] ?? '';
    const end = Number(body[i + 4]);
    if (Number.isInteger(start) && Number.isInteger(end)) segments.push({ word: word.replace(/\(\d+\)$/, ''), start, end });
  }
  return segments;
}

/**
 * Audio this far below the speech a hypothesis explains (the loudest twentieth of its
 * words' frames) is background, not speech it must explain: the avatar's own voice left in
 * the microphone at -25 dB by an echo canceller, a room. A recognizer hears a question over
 * it (20 dB is a clean signal-to-noise ratio for speech recognition).
 */
export const BACKGROUND_DB = 20;

/** Frames either side (100 ms) whose loudest decides whether a frame is near speech. */
const NEIGHBOURHOOD = 10;

function frameEnergies(pcm: Int16Array): number[] {
  const energies: number[] = [];
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) energies.push(frameEnergyDb(pcm.subarray(at, at + FRAME)));
  return energies;
}

/** The energy (dB) below which `fraction` of the (sorted) frames lie. */
function quantile(sorted: number[], fraction: number): number | undefined {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

function loudThreshold(sorted: number[]): number {
  return Math.max(-50, (quantile(sorted, 0.1) ?? -90) + 12);
}

/** Loud 10 ms frames of the utterance, relative to its own quietest tenth. */
export function loudFrames(pcm: Int16Array): boolean[] {
  const energies = frameEnergies(pcm);
  const threshold = loudThreshold(ascending(energies));
  return energies.map((e) => e > threshold);
}

/**
 * Loud frames that fall in filler segments or after the last segment, and are near speech:
 * within BACKGROUND_DB of the speech the words explain, or within 100 ms of a frame that is.
 * A quiet consonant or word next to speech still counts; a stretch of background does not.
 */
export function unexplainedSpeechFrames(pcm: Int16Array, segments: HypSegment[]): number {
  const energies = frameEnergies(pcm);
  const explained = new Array<boolean>(energies.length).fill(false);
  for (const seg of segments) {
    if (isFiller(seg.word)) continue;
    for (let f = Math.max(0, seg.start); f < Math.min(energies.length, seg.end); f++) explained[f] = true;
  }
  const all = ascending(energies);
  const loud = loudThreshold(all);
  const words = ascending(energies.filter((_, f) => explained[f]));
  const speech = (quantile(words, 0.95) ?? quantile(all, 0.95) ?? 0) - BACKGROUND_DB;
  const nearSpeech = (f: number) => {
    for (let n = Math.max(0, f - NEIGHBOURHOOD); n <= Math.min(energies.length - 1, f + NEIGHBOURHOOD); n++) if (energies[n]! > speech) return true;
    return false;
  };
  return energies.filter((e, f) => !explained[f] && e > loud && nearSpeech(f)).length;
}
