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

/** Loud 10 ms frames of the utterance, relative to its own quietest tenth. */
export function loudFrames(pcm: Int16Array): boolean[] {
  const energies: number[] = [];
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) energies.push(frameEnergyDb(pcm.subarray(at, at + FRAME)));
  const sorted = [...energies].sort((a, b) => a - b);
  const floor = sorted[Math.floor(sorted.length / 10)] ?? -90;
  const threshold = Math.max(-50, floor + 12);
  return energies.map((e) => e > threshold);
}

/** Loud frames that fall in filler segments or after the last segment. */
export function unexplainedSpeechFrames(pcm: Int16Array, segments: HypSegment[]): number {
  const loud = loudFrames(pcm);
  const explained = new Array<boolean>(loud.length).fill(false);
  for (const seg of segments) {
    if (isFiller(seg.word)) continue;
    for (let f = Math.max(0, seg.start); f < Math.min(loud.length, seg.end); f++) explained[f] = true;
  }
  return loud.filter((isLoud, f) => isLoud && !explained[f]).length;
}
