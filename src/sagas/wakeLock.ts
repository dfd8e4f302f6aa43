/**
 * The screen stays on while a session is live (issue: hands-free calls on phones). Nobody
 * touches the screen in a call, so without a Screen Wake Lock the phone dims and locks
 * after its auto-lock delay, the page is hidden, and the session ends. The lock is taken
 * when the session goes live, taken again when the page is visible after the browser
 * dropped it (it does on hiding), and released when the session ends (this task is
 * cancelled with the session). Where the API is missing or refuses, nothing else changes
 * and the session log says why.
 */
import { call, take } from 'typed-redux-saga';
import { createLogger } from '../services/logger.ts';
import type { PlatformService, ScreenWakeLock } from '../services/platform.ts';
import { visibilityChannel } from './channels/visibilityChannel.ts';
import { services } from './context.ts';

const log = createLogger('wakeLock');

/** A request still in flight when the session ended: its lock is released once granted. */
interface InFlight {
  request: Promise<ScreenWakeLock> | null;
}

function* acquire(platform: PlatformService, inFlight: InFlight) {
  const request = platform.requestScreenWakeLock();
  inFlight.request = request;
  try {
    const lock = yield* call(() => request);
    inFlight.request = null;
    log.info('screen wake lock held');
    return { lock, supported: true };
  } catch (error) {
    inFlight.request = null;
    const name = error instanceof DOMException || error instanceof Error ? error.name : '';
    log.warn('screen wake lock not held: the screen may lock during the session', { reason: name || String(error) });
    return { lock: null, supported: name !== 'NotSupportedError' };
  }
  // Cancelled while waiting: inFlight.request stays for keepScreenOn's finally.
}

export function* keepScreenOn() {
  const { platform } = yield* services();
  const chan = visibilityChannel(platform);
  let lock: ScreenWakeLock | null = null;
  const inFlight: InFlight = { request: null };
  try {
    const first = yield* call(acquire, platform, inFlight);
    lock = first.lock;
    if (!first.supported) return;
    for (;;) {
      const { hidden } = yield* take(chan);
      if (hidden || (lock && !lock.released)) continue;
      lock = (yield* call(acquire, platform, inFlight)).lock;
    }
  } finally {
    chan.close();
    if (inFlight.request) {
      inFlight.request.then(
        (late) => late.release(),
        () => undefined,
      );
    }
    if (lock && !lock.released) {
      try {
        yield* call([lock, lock.release]);
        log.info('screen wake lock released');
      } catch (error) {
        log.warn('screen wake lock release failed', { error: String(error) });
      }
    }
  }
}
