/**
 * Splits a stream of 16-bit mono PCM into utterances by frame energy, the way the real
 * service segments continuous recognition: an utterance starts when most of the last
 * 100 ms is louder than the noise floor, and ends after `segmentationSilenceMs` of quiet
 * or when it reaches the length cap. Pure and synchronous, so it is tested sample by sample.
 *
 * The noise floor follows quiet frames. Should the background itself get louder than the
 * margin (a gain change, a fan switching on) there would be no quiet frame left to follow,
 * and every later frame would count as speech: one endless utterance cut at the length cap,
 * again and again, for the rest of the connection. So when no frame of the last few
 * seconds came anywhere near the floor, the floor jumps to the quietest of them.
 */

export interface EndpointerOptions {
  segmentationSilenceMs: number;
  sampleRate?: number;
  /** Longer utterances are cut here (the real service's forced segmentation). */
  maxUtteranceMs?: number;
  /** Audio kept before the detected start so the first phoneme is not clipped. */
  preRollMs?: number;
  /** Quiet kept after the last loud frame; the decoder wants a little silence at the end. */
  postRollMs?: number;
  /** A frame is speech when it is this much louder than the noise floor... */
  marginDb?: number;
  /** ...and louder than this absolute level (dBFS), so digital silence never starts speech. */
  minSpeechDb?: number;
}

export type EndReason = 'silence' | 'maxLength' | 'flush';

export type EndpointerEvent =
  | { type: 'start'; startSample: number }
  | { type: 'end'; startSample: number; endSample: number; audio: Int16Array; reason: EndReason };

const FRAME_MS = 10;
/** Start when at least START_HITS of the last START_WINDOW frames are speech. */
const START_WINDOW = 10;
const START_HITS = 6;
const FLOOR_MIN_DB = -90;
const FLOOR_MAX_DB = -35;
/** Frames looked back over when no quiet frame came for too long (5 s; speech always pauses sooner). */
const FLOOR_RESET_FRAMES = 500;

export function frameEnergyDb(frame: Int16Array): number {
  let sum = 0;
  for (const s of frame) sum += s * s;
  const meanSquare = frame.length > 0 ? sum / frame.length : 0;
  return 10 * Math.log10(meanSquare / (32768 * 32768) + 1e-12);
}

export class Endpointer {
  private readonly frameSamples: number;
  private readonly silenceFrames: number;
  private readonly maxFrames: number;
  private readonly preRollFrames: number;
  private readonly postRollFrames: number;
  private readonly marginDb: number;
  private readonly minSpeechDb: number;

  private carry = Buffer.alloc(0);
  private framesSeen = 0;
  private noiseFloorDb = -70;
  /** Energies of the last FLOOR_RESET_FRAMES frames, a ring. */
  private readonly levels = new Float64Array(FLOOR_RESET_FRAMES);
  private levelCount = 0;
  /** Recent frames before speech, with whether each was loud. */
  private recent: { frame: Int16Array; loud: boolean; index: number }[] = [];
  private utterance: Int16Array[] = [];
  private startFrame = 0;
  private firstFrameKept = 0;
  private lastLoudFrame = 0;
  private quietRun = 0;
  private speaking = false;

  constructor(opts: EndpointerOptions) {
    const rate = opts.sampleRate ?? 16_000;
    this.frameSamples = (rate * FRAME_MS) / 1000;
    this.silenceFrames = Math.max(1, Math.round(opts.segmentationSilenceMs / FRAME_MS));
    this.maxFrames = Math.round((opts.maxUtteranceMs ?? 20_000) / FRAME_MS);
    this.preRollFrames = Math.round((opts.preRollMs ?? 300) / FRAME_MS);
    this.postRollFrames = Math.round((opts.postRollMs ?? 300) / FRAME_MS);
    this.marginDb = opts.marginDb ?? 12;
    this.minSpeechDb = opts.minSpeechDb ?? -50;
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  /** Samples seen since the stream began (the time base for offsets). */
  get samplesSeen(): number {
    return this.framesSeen * this.frameSamples + this.carry.length / 2;
  }

  /** Length of the current utterance from its detected start, in samples (0 when quiet). */
  get speechSamples(): number {
    return this.speaking ? (this.framesSeen - this.startFrame) * this.frameSamples : 0;
  }

  /** Samples from the detected start to the end of the last loud frame: grows only while the speaker talks. */
  get voicedSamples(): number {
    return this.speaking ? (this.lastLoudFrame + 1 - this.startFrame) * this.frameSamples : 0;
  }

  /** The utterance so far, pre-roll included, for partial decoding. */
  currentAudio(): Int16Array {
    return concat(this.utterance);
  }

  push(pcm: Buffer): EndpointerEvent[] {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, pcm]) : pcm;
    const frameBytes = this.frameSamples * 2;
    const whole = data.length - (data.length % frameBytes);
    const events: EndpointerEvent[] = [];
    for (let off = 0; off < whole; off += frameBytes) {
      // Copy: the frame outlives the socket's buffer, and Int16Array needs 2-byte alignment.
      const frame = new Int16Array(this.frameSamples);
      for (let i = 0; i < this.frameSamples; i++) frame[i] = data.readInt16LE(off + i * 2);
      const event = this.onFrame(frame);
      if (event) events.push(event);
    }
    this.carry = Buffer.from(data.subarray(whole));
    return events;
  }

  /** End of stream: closes an utterance in progress. */
  flush(): EndpointerEvent[] {
    this.carry = Buffer.alloc(0);
    return this.speaking ? [this.finish('flush')] : [];
  }

  private isLoud(frame: Int16Array): boolean {
    const db = frameEnergyDb(frame);
    this.levels[this.levelCount++ % FLOOR_RESET_FRAMES] = db;
    this.resetStaleFloor();
    const loud = db > this.thresholdDb();
    if (!this.speaking && !loud) {
      // Follow the floor down at once and up slowly, so a burst of speech cannot raise it.
      const next = db < this.noiseFloorDb ? db : this.noiseFloorDb * 0.99 + db * 0.01;
      this.noiseFloorDb = clampFloor(next);
    }
    return loud;
  }

  private thresholdDb(): number {
    return Math.max(this.minSpeechDb, this.noiseFloorDb + this.marginDb);
  }

  private resetStaleFloor(): void {
    if (this.levelCount < FLOOR_RESET_FRAMES || this.levelCount % 10 !== 0) return; // every 100 ms is plenty
    let quietest = Infinity;
    for (const level of this.levels) quietest = Math.min(quietest, level);
    if (quietest > this.thresholdDb()) this.noiseFloorDb = clampFloor(quietest);
  }

  private onFrame(frame: Int16Array): EndpointerEvent | null {
    const index = this.framesSeen++;
    const loud = this.isLoud(frame);
    if (!this.speaking) return this.listen(frame, loud, index);
    this.utterance.push(frame);
    if (loud) {
      this.lastLoudFrame = index;
      this.quietRun = 0;
    } else {
      this.quietRun++;
    }
    if (this.quietRun >= this.silenceFrames) return this.finish('silence');
    if (index + 1 - this.startFrame >= this.maxFrames) return this.finish('maxLength');
    return null;
  }

  private listen(frame: Int16Array, loud: boolean, index: number): EndpointerEvent | null {
    this.recent.push({ frame, loud, index });
    if (this.recent.length > this.preRollFrames + START_WINDOW) this.recent.shift();
    const window = this.recent.slice(-START_WINDOW);
    if (window.filter((f) => f.loud).length < START_HITS) return null;
    const first = window.find((f) => f.loud);
    this.startFrame = first ? first.index : index;
    const kept = this.recent.filter((f) => f.index >= this.startFrame - this.preRollFrames);
    this.firstFrameKept = kept[0]?.index ?? index;
    this.utterance = kept.map((f) => f.frame);
    this.recent = [];
    this.speaking = true;
    this.lastLoudFrame = index;
    this.quietRun = 0;
    return { type: 'start', startSample: this.startFrame * this.frameSamples };
  }

  private finish(reason: EndReason): EndpointerEvent {
    const cut = reason === 'maxLength' ? this.framesSeen : Math.min(this.framesSeen, this.lastLoudFrame + 1 + this.postRollFrames);
    const audio = concat(this.utterance.slice(0, Math.max(0, cut - this.firstFrameKept)));
    const endFrame = reason === 'maxLength' ? this.framesSeen : this.lastLoudFrame + 1;
    const event: EndpointerEvent = {
      type: 'end',
      startSample: this.startFrame * this.frameSamples,
      endSample: endFrame * this.frameSamples,
      audio,
      reason,
    };
    this.speaking = false;
    this.utterance = [];
    this.quietRun = 0;
    return event;
  }
}

function clampFloor(db: number): number {
  return Math.min(FLOOR_MAX_DB, Math.max(FLOOR_MIN_DB, db));
}

function concat(frames: Int16Array[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}
