/**
 * The live chunk (src/live/index.tsx: the live screen, chat, voice and stats, their sagas
 * and services) is not on the pre-session screen's path. It is fetched while the visitor
 * reads that screen: once the account has loaded and the page is idle, so it never
 * competes with the photo. A Start chat before that fetches it at once.
 *
 * A Start chat while it loads is held here: the status says connecting (the reducer), the
 * session's sagas are not there yet. Its Cancel, End chat, hidden page and 15 s deadline
 * end it here as the session saga would; when the chunk arrives, the session starts with
 * the status still connecting (sessionWatcher's startPending).
 *
 * A chunk that does not load (the network dropped) fails the start waiting for it with a
 * message, and is fetched again on the next Start chat, or in the background a little later.
 */
import { call, cancel, delay, fork, put, race, select, setContext, take } from 'typed-redux-saga';
import { selectAccountInfo, accountLoaded } from '../features/account/accountSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { alertShown } from '../features/notices/noticesSlice.ts';
import {
  cancelRequested,
  endRequested,
  endTriggered,
  selectSessionStatus,
  sessionEnded,
  sessionEnding,
  START_TIMEOUT_MS,
  startRequested,
  type EndReason,
} from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import { coreServices, type LiveServices } from './context.ts';
import type { LiveSagaOptions } from './liveSaga.ts';

const log = createLogger('live-chunk');

/** What the live chunk gives the store. */
export interface LiveChunk {
  liveSaga(options: LiveSagaOptions): Generator;
  /** The live services (production). Tests give every service in the store's context up front and leave this out. */
  createServices?: () => LiveServices;
}

/** Loads the live chunk: import() in the app, the module itself in tests. */
export type LiveLoader = () => LiveChunk | Promise<LiveChunk>;

/** Waits before fetching a chunk that failed again in the background; a Start chat does not wait. */
export const LIVE_CHUNK_RETRY_MS = [3000, 10_000, 30_000] as const;

function* presessionShown() {
  if ((yield* select(selectAccountInfo)) === null) yield* take(accountLoaded.match);
  const { platform } = yield* coreServices();
  yield* call([platform, platform.whenIdle]);
}

/** A Start chat that waits for the chunk ends the way a connecting session does. */
function* holdPendingStarts() {
  for (;;) {
    if ((yield* select(selectSessionStatus)) !== 'connecting') {
      yield* take(startRequested.type);
      continue;
    }
    const outcome = yield* race({
      timeout: delay(START_TIMEOUT_MS),
      cancel: take(cancelRequested.type),
      end: take(endRequested.type),
      triggered: take(endTriggered.match),
    });
    let reason: EndReason = 'startFailed';
    if (outcome.timeout) reason = 'timeout';
    else if (outcome.cancel) reason = 'cancelled';
    else if (outcome.end) reason = 'user';
    else if (outcome.triggered) reason = outcome.triggered.payload;
    log.info('a start waiting for the live chunk ends', { reason });
    yield* put(sessionEnding(reason));
    yield* put(sessionEnded());
  }
}

export function* liveLoader(load: LiveLoader) {
  const holder = yield* fork(holdPendingStarts);
  yield* race({ shown: call(presessionShown), start: take(startRequested.type) });
  let chunk: LiveChunk | null = null;
  for (let failures = 0; chunk === null; failures += 1) {
    try {
      // A promise (import()) is awaited; a module given as is (tests) is taken at once.
      chunk = (yield* call(load)) as LiveChunk;
    } catch (error) {
      log.warn('the live chunk did not load', { error: String(error), failures: failures + 1 });
      if ((yield* select(selectSessionStatus)) === 'connecting') {
        yield* put(alertShown({ id: catalogue.appLoadFailed.id }));
        yield* put(endTriggered('startFailed'));
      }
      const wait = LIVE_CHUNK_RETRY_MS[Math.min(failures, LIVE_CHUNK_RETRY_MS.length - 1)] ?? 30_000;
      yield* race({ later: delay(wait), start: take(startRequested.type) });
    }
  }
  yield* cancel(holder);
  if (chunk.createServices) {
    const core = yield* coreServices();
    yield* setContext({ services: { ...core, ...chunk.createServices() } });
  }
  const startPending = (yield* select(selectSessionStatus)) === 'connecting';
  if (startPending) log.info('the live chunk is here: starting the session that waited for it');
  yield* call([chunk, chunk.liveSaga], { startPending });
}
