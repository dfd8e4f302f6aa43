import { call } from 'typed-redux-saga';
import { createLogger } from '../services/logger.ts';

const log = createLogger('saga');

/** Restarts allowed per watcher: enough for a rare bug, not an endless loop for a saga that always throws. */
export const MAX_RESTARTS = 3;

/**
 * A watcher that throws is a bug, but it must not take every other saga down
 * with it (an uncaught error ends the root saga): log it and start it again.
 */
export function* keepAlive<Args extends unknown[]>(name: string, saga: (...args: Args) => Generator, ...args: Args) {
  for (let restarts = 0; ; restarts += 1) {
    try {
      yield* call(saga, ...args);
      return;
    } catch (error) {
      log.error(`${name} saga crashed`, { error: String(error), restarts });
      if (restarts >= MAX_RESTARTS) return;
    }
  }
}
