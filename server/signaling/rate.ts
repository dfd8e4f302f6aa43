/**
 * How much one signaling socket may send: a token bucket of frames and one of bytes. Every
 * frame is parsed, validated, logged and may start a reply, so an unbounded rate on one
 * socket is an unbounded share of the stand-in's one event loop. The client sends a few
 * frames a second at most (a call's partial wordings are the busiest), so the rate sits far
 * above it; a socket that goes beyond is closed (1008), which a real client never sees.
 */
export interface FrameRate {
  /** Frames a second, sustained, and at once. */
  framesPerSecond: number;
  frameBurst: number;
  /** Bytes a second, sustained, and at once (at least one frame of the largest size). */
  bytesPerSecond: number;
  byteBurst: number;
}

export const FRAME_RATE: FrameRate = {
  framesPerSecond: 20,
  frameBurst: 40,
  bytesPerSecond: 256 * 1024,
  byteBurst: 1024 * 1024,
};

/** Charges each frame; false once the socket has gone beyond its rate. */
export function frameBudget(rate: FrameRate = FRAME_RATE, now: () => number = () => performance.now()): (bytes: number) => boolean {
  let frames = rate.frameBurst;
  let bytes = rate.byteBurst;
  let last = now();
  return (size) => {
    const t = now();
    const seconds = Math.max(0, t - last) / 1000;
    last = t;
    frames = Math.min(rate.frameBurst, frames + seconds * rate.framesPerSecond);
    bytes = Math.min(rate.byteBurst, bytes + seconds * rate.bytesPerSecond);
    if (frames < 1 || bytes < size) return false;
    frames -= 1;
    bytes -= size;
    return true;
  };
}
