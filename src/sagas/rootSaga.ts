import { all, call, fork } from 'typed-redux-saga';
import { createLogger } from '../services/logger.ts';
import { boot } from './boot.ts';
import { chatSaga } from './chat.ts';
import { sessionWatcher } from './session.ts';
import { signalingSendWatcher } from './signaling.ts';
import { createSignalingLink } from './signalingLink.ts';
import { statsSaga } from './stats.ts';
import { visibilityWatcher } from './visibility.ts';
import { voiceSaga } from './voice.ts';

const log = createLogger('saga');

/** Restarts allowed per watcher: enough for a rare bug, not an endless loop for a saga that always throws. */
const MAX_RESTARTS = 3;

/**
 * A watcher that throws is a bug, but it must not take every other saga down
 * with it (an uncaught error ends the root saga): log it and start it again.
 */
function* keepAlive<Args extends unknown[]>(name: string, saga: (...args: Args) => Generator, ...args: Args) {
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

export function* rootSaga() {
  const link = createSignalingLink();
  yield* all([
    fork(keepAlive, 'boot', boot),
    fork(keepAlive, 'session', sessionWatcher, link),
    fork(keepAlive, 'signaling', signalingSendWatcher, link),
    fork(keepAlive, 'visibility', visibilityWatcher),
    fork(keepAlive, 'stats', statsSaga),
    fork(keepAlive, 'chat', chatSaga),
    fork(keepAlive, 'voice', voiceSaga),
  ]);
}
