/**
 * A hidden page ends the session (docs/requirements.md R48): at once, or after 3 s on iOS
 * and in messenger apps, whose own overlays hide the page briefly; coming back
 * within the grace keeps the session.
 */
import { call, delay, put, race, select, take } from 'typed-redux-saga';
import type { EventChannel } from 'redux-saga';
import { endTriggered, selectSessionStatus } from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import { visibilityChannel, type VisibilityEvent } from './channels/visibilityChannel.ts';
import { coreServices } from './context.ts';

const log = createLogger('visibility');

function* sessionActive() {
  const status = yield* select(selectSessionStatus);
  return status === 'connecting' || status === 'live';
}

function* untilVisible(chan: EventChannel<VisibilityEvent>) {
  for (;;) {
    const { hidden } = yield* take(chan);
    if (!hidden) return true;
  }
}

export function* visibilityWatcher() {
  const { platform } = yield* coreServices();
  const chan = visibilityChannel(platform);
  try {
    for (;;) {
      const { hidden } = yield* take(chan);
      if (!hidden || !(yield* call(sessionActive))) continue;
      const grace = platform.hiddenGraceMs();
      if (grace > 0) {
        const { back } = yield* race({ back: call(untilVisible, chan), gone: delay(grace) });
        if (back) {
          log.info('page visible again within the grace');
          continue;
        }
      }
      if (!(yield* call(sessionActive))) continue;
      log.info('page hidden: ending the session', { grace });
      yield* put(endTriggered('hidden'));
    }
  } finally {
    chan.close();
  }
}
