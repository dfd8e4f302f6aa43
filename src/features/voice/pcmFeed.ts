/**
 * The one path from the microphone's PCM to the recognizer's push stream. Audio is
 * high-rate (a 96 ms chunk about ten times a second), so it never goes through the
 * store or a saga channel: the pipeline's onPcm16 writes here and this writes on.
 *
 * The microphone is usually ready before the recognizer (the SDK connects over the
 * network), so chunks are held until a sink is attached — the visitor's first word
 * is not lost — up to a bound, after which the oldest are dropped.
 */

export interface PcmSink {
  write(pcm16: Int16Array): void;
}

export interface PcmFeed {
  /** Chunks of audio that came in (not paused) since the feed was made. */
  readonly received: number;
  /** Chunks the last attach() handed over at once: the backlog the new sink starts with. */
  readonly handedOver: number;
  /**
   * The feed's clock: milliseconds of audio that came in (not paused) since the feed was
   * made. Voice detection hears the same audio, so both can be placed on it.
   */
  readonly receivedMs: number;
  /** Where on the feed's clock the current sink's audio starts (the first chunk it was written); null without a sink. */
  readonly sinkStartMs: number | null;
  /** The pipeline's onPcm16. */
  write(pcm16: Int16Array): void;
  /**
   * Sends what was held, then everything that follows, to `sink`. With `replayFromMs` (a
   * point on the feed's clock), the audio the previous sink was written from then on is sent
   * first too, as far as REPLAY_KEEP_MS back: a recognizer replacing one whose path died
   * hears what the dead one never answered.
   */
  attach(sink: PcmSink, replayFromMs?: number): void;
  /** Stops writing to `sink` (if it is still the current one); later chunks are held again. */
  detach(sink: PcmSink): void;
  /** Paused (muted): chunks are dropped, not held. */
  setPaused(paused: boolean): void;
  /** Drops what was held and writes nothing any more. */
  close(): void;
}

/** The feed carries 16 kHz PCM. */
const SAMPLES_PER_MS = 16;

/** 10 s of audio: more than any recognizer takes to connect; a bound on memory if it never does. */
export const MAX_HELD_CHUNKS = 105;
/** How much of the audio already written to a sink is kept for a successor's replay (160 KB). */
export const REPLAY_KEEP_MS = 5_000;

export function createPcmFeed(maxHeld = MAX_HELD_CHUNKS): PcmFeed {
  let held: Int16Array[] = [];
  let sink: PcmSink | null = null;
  let paused = false;
  let closed = false;
  let received = 0;
  let handedOver = 0;
  let receivedMs = 0;
  /** How much audio `held` carries (ms). */
  let heldMs = 0;
  let sinkStartMs: number | null = null;
  /** The newest audio written to a sink, up to REPLAY_KEEP_MS; it ends where `held` starts. */
  let recent: Int16Array[] = [];
  let recentMs = 0;
  const msOf = (pcm16: Int16Array) => pcm16.length / SAMPLES_PER_MS;
  const keep = (pcm16: Int16Array) => {
    recent.push(pcm16);
    recentMs += msOf(pcm16);
    while (recent.length > 1 && recentMs - msOf(recent[0]!) >= REPLAY_KEEP_MS) recentMs -= msOf(recent.shift()!);
  };
  /** The kept audio from `fromMs` on (whole chunks, the one `fromMs` falls in included), and where it starts on the clock. */
  const replayFrom = (fromMs: number) => {
    let startMs = receivedMs - heldMs;
    let first = recent.length;
    while (first > 0 && startMs > fromMs + 1e-6) {
      first -= 1;
      startMs -= msOf(recent[first]!);
    }
    return { chunks: recent.slice(first), startMs };
  };

  return {
    get received() {
      return received;
    },
    get handedOver() {
      return handedOver;
    },
    get receivedMs() {
      return receivedMs;
    },
    get sinkStartMs() {
      return sinkStartMs;
    },
    write(pcm16) {
      if (closed || paused) return;
      received += 1;
      receivedMs += msOf(pcm16);
      if (sink) {
        sink.write(pcm16);
        keep(pcm16);
        return;
      }
      held.push(pcm16);
      heldMs += msOf(pcm16);
      if (held.length > maxHeld) {
        held.splice(0, held.length - maxHeld).forEach((dropped) => (heldMs -= msOf(dropped)));
        // The kept audio no longer ends where what is held starts: it cannot be replayed in place.
        recent = [];
        recentMs = 0;
      }
    },
    attach(next, replayFromMs) {
      if (closed) return;
      sink = next;
      const replay = replayFromMs === undefined ? { chunks: [], startMs: receivedMs - heldMs } : replayFrom(replayFromMs);
      const pending = held;
      held = [];
      handedOver = replay.chunks.length + pending.length;
      sinkStartMs = replay.startMs;
      heldMs = 0;
      // The replay is kept already; what was held joins it.
      for (const chunk of replay.chunks) next.write(chunk);
      for (const chunk of pending) {
        next.write(chunk);
        keep(chunk);
      }
    },
    detach(old) {
      // A recognizer closing after its successor was attached must not cut the successor off.
      if (sink === old) {
        sink = null;
        sinkStartMs = null;
      }
    },
    setPaused(value) {
      paused = value;
      if (paused) {
        held = [];
        heldMs = 0;
        // Audio from before a pause is not replayed after it: the clock does not run meanwhile.
        recent = [];
        recentMs = 0;
      }
    },
    close() {
      closed = true;
      sink = null;
      sinkStartMs = null;
      held = [];
      heldMs = 0;
      recent = [];
      recentMs = 0;
    },
  };
}
