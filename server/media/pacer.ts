/**
 * Feeds the room's Opus encoder one continuous real-time stream of 20 ms PCM chunks: the current
 * speech while the avatar talks, silence otherwise. The encoder never starves and never sees a
 * gap, so the RTP timestamps of the audio track follow the wall clock.
 */
import { startTicker, type Ticker } from './ticker.ts';

export type SpeechEnd = 'done' | 'interrupted';
export interface Playback {
  durationMs: number;
  /** Resolves when the first chunk of this speech has been handed to the encoder. */
  started: Promise<void>;
  finished: Promise<SpeechEnd>;
}

interface Current {
  pcm: Int16Array;
  pos: number;
  start: () => void;
  finish: (end: SpeechEnd) => void;
}

/** Encoders behind by more than this much audio get a burst to catch up; beyond it we skip. */
const MAX_CATCH_UP_CHUNKS = 25;

export class AudioPacer {
  readonly samplesPerChunk: number;
  private readonly silence: Buffer;
  private current: Current | undefined;
  private ticker: Ticker | undefined;
  private lastLevel = 0;
  private written = 0;

  constructor(
    private readonly sink: (chunk: Buffer) => void,
    readonly sampleRate = 48_000,
    readonly chunkMs = 20,
  ) {
    this.samplesPerChunk = (sampleRate * chunkMs) / 1000;
    this.silence = Buffer.alloc(this.samplesPerChunk * 2);
  }

  start(): void {
    if (this.ticker) return;
    this.ticker = startTicker(
      this.chunkMs,
      (due) => {
        for (let i = 0; i < due; i++) this.sink(this.nextChunk());
      },
      { maxCatchUp: MAX_CATCH_UP_CHUNKS },
    );
  }

  stop(): void {
    this.ticker?.stop();
    this.ticker = undefined;
    this.stopSpeaking();
  }

  /** Replaces whatever is playing; the previous playback finishes as 'interrupted'. */
  play(pcm: Int16Array): Playback {
    this.stopSpeaking();
    let start!: () => void;
    let finish!: (end: SpeechEnd) => void;
    const started = new Promise<void>((resolve) => (start = resolve));
    const finished = new Promise<SpeechEnd>((resolve) => (finish = resolve));
    const durationMs = Math.round((pcm.length / this.sampleRate) * 1000);
    if (pcm.length === 0) {
      start();
      finish('done');
    } else {
      this.current = { pcm, pos: 0, start, finish };
    }
    return { durationMs, started, finished };
  }

  /** The very next chunk is silence. */
  stopSpeaking(): void {
    const current = this.current;
    this.current = undefined;
    this.lastLevel = 0;
    if (current) {
      current.start(); // nobody should wait forever for a start that will never come
      current.finish('interrupted');
    }
  }

  get speaking(): boolean {
    return this.current !== undefined;
  }

  /** RMS of the last chunk handed out, 0..1: what the avatar's mouth follows. */
  get level(): number {
    return this.lastLevel;
  }

  get chunksWritten(): number {
    return this.written;
  }

  /** The next 20 ms of s16le mono audio. Public so the chunk logic can be tested without a clock. */
  nextChunk(): Buffer {
    this.written++;
    const current = this.current;
    if (!current) {
      this.lastLevel = 0;
      return this.silence;
    }
    const n = this.samplesPerChunk;
    const chunk = Buffer.alloc(n * 2);
    const end = Math.min(current.pos + n, current.pcm.length);
    let energy = 0;
    for (let i = current.pos; i < end; i++) {
      const s = current.pcm[i] ?? 0;
      chunk.writeInt16LE(s, (i - current.pos) * 2);
      energy += s * s;
    }
    this.lastLevel = Math.sqrt(energy / n) / 32768;
    if (current.pos === 0) current.start();
    current.pos = end;
    if (end >= current.pcm.length) {
      this.current = undefined;
      current.finish('done');
    }
    return chunk;
  }
}
