import { all, fork } from 'typed-redux-saga';
import { boot } from './boot.ts';
import { keepAlive } from './keepAlive.ts';
import { liveLoader, type LiveLoader } from './liveLoader.ts';
import { visibilityWatcher } from './visibility.ts';

/**
 * The sagas of the first chunk: the account and language (boot), the hidden page, and
 * the loader of the live chunk, which runs the live session's sagas once it is here
 * (liveLoader.ts, liveSaga.ts).
 */
export function* rootSaga(loadLive: LiveLoader) {
  yield* all([
    fork(keepAlive, 'boot', boot),
    fork(keepAlive, 'visibility', visibilityWatcher),
    fork(keepAlive, 'live', liveLoader, loadLive),
  ]);
}
