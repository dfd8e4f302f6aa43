/**
 * Waits until the room's stream is published: the streams list is asked at
 * once, then every 400 ms (docs/requirements.md R79), counted from the start of the last
 * poll, so a slow answer does not push every later poll back. Polls never
 * overlap: after an answer slower than 400 ms the next one goes at once. A
 * failed poll is logged and retried: the session's 15 s deadline, not the poll,
 * decides when to give up.
 */
import { call, delay } from 'typed-redux-saga';
import { isAbortError } from '../services/http.ts';
import { createLogger } from '../services/logger.ts';
import { services } from './context.ts';

const log = createLogger('polling');

export const STREAM_POLL_MS = 400;

export function* waitForStream(target: { srsLink: string; roomId: string }, signal: AbortSignal) {
  const { streams } = yield* services();
  for (let poll = 1; ; poll += 1) {
    const startedAt = performance.now();
    try {
      const active = yield* call([streams, streams.isStreamActive], target, signal);
      if (active) {
        log.info('stream is active', { roomId: target.roomId, polls: poll });
        return;
      }
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error;
      log.warn('stream poll failed', { poll, error: String(error) });
    }
    const wait = STREAM_POLL_MS - (performance.now() - startedAt);
    if (wait > 0) yield* delay(wait);
  }
}
