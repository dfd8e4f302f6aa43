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
  /** Sends what was held, then everything that follows, to `sink`. */
  attach(sink: PcmSink): void;
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
  const msOf = (pcm16: Int16Array) => pcm16.length / SAMPLES_PER_MS;

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
        return;
      }
      held.push(pcm16);
      heldMs += msOf(pcm16);
      if (held.length > maxHeld) held.splice(0, held.length - maxHeld).forEach((dropped) => (heldMs -= msOf(dropped)));
    },
    attach(next) {
      if (closed) return;
      sink = next;
      const pending = held;
      held = [];
      handedOver = pending.length;
      sinkStartMs = receivedMs - heldMs;
      heldMs = 0;
      for (const chunk of pending) next.write(chunk);
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
      }
    },
    close() {
      closed = true;
      sink = null;
      sinkStartMs = null;
      held = [];
      heldMs = 0;
    },
  };
}
