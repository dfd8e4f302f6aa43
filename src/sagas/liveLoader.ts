/**
 * The live chunk (src/live/index.ts: the live screen, chat, voice and stats, their sagas
 * and services) is not on the pre-session screen's path. It is fetched while the visitor
 * reads that screen: once the account has loaded and the page is idle, so it never
 * competes with the photo. A Start chat before that fetches it at once.
 *
 * A Start chat while it loads is held here as the session saga would hold it: the status
 * says connecting (the reducer), leaving the page asks for confirmation, a second tap says
 * "please wait", and Cancel, End chat, a hidden page or the 15 s deadline end it. When the
 * chunk arrives, the session starts with what is left of those 15 s (sessionWatcher).
 *
 * A chunk that does not load (the network dropped) fails the start waiting for it with a
 * message whose Refresh reloads the page (WebKit keeps a failed module fetch and would
 * fail every later import of it), and is fetched again on the next Start chat, or in the
 * background a little later. One whose fetch stalls, neither coming nor failing, does the
 * same LIVE_CHUNK_WAIT_MS after the tap, within the start's 15 s.
 */
import { call, cancel, delay, fork, put, race, select, setContext, take } from 'typed-redux-saga';
import { accountLoaded, selectAccountInfo } from '../features/account/accountSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { alertShown, toastShown } from '../features/notices/noticesSlice.ts';
import {
  endTriggered,
  selectSessionStatus,
  sessionEnded,
  sessionEnding,
  START_TIMEOUT_MS,
  startRequested,
} from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import { coreServices, type LiveServices } from './context.ts';
import { deadlineAfter, endReasonOf, endings } from './endings.ts';
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
/**
 * How long of its 15 s a start waits for a chunk that neither comes nor fails (a fetch that
 * stalls on a dying network): then it ends with the chunk's alert and its Refresh, not
 * silently at 15 s. With less than 5 s left the rest of a start (route, room, stream, media)
 * could not make it anyway. The import itself cannot be called off (a second import() of
 * the same chunk waits on the same fetch), which is why the alert offers a reload.
 */
export const LIVE_CHUNK_WAIT_MS = 10_000;

/** When the start that waits for the chunk was tapped (Date.now()), or null. */
interface PendingStart {
  since: number | null;
}

function* presessionShown() {
  if ((yield* select(selectAccountInfo)) === null) yield* take(accountLoaded.match);
  const { platform } = yield* coreServices();
  yield* call([platform, platform.whenIdle]);
}

/** One start that waits for the chunk, until it ends (or this task is cancelled: the chunk came). */
function* holdStart(pending: PendingStart) {
  const { platform } = yield* coreServices();
  pending.since = Date.now();
  platform.setLeaveGuard(true);
  try {
    for (;;) {
      const waited = Date.now() - pending.since;
      const outcome = yield* race({
        ...endings(deadlineAfter(START_TIMEOUT_MS, waited)),
        stalled: deadlineAfter(LIVE_CHUNK_WAIT_MS, waited),
        again: take(startRequested.type),
      });
      if (outcome.again) {
        yield* put(toastShown({ id: catalogue.pleaseWait.id }));
        continue;
      }
      if (outcome.stalled) {
        log.warn('the live chunk has not arrived: the start ends with the offer to reload', { waitedMs: LIVE_CHUNK_WAIT_MS });
        yield* put(alertShown({ id: catalogue.appLoadFailed.id }, 'reload'));
      }
      const reason = endReasonOf(outcome) ?? 'startFailed';
      log.info('a start waiting for the live chunk ends', { reason });
      yield* put(sessionEnding(reason));
      yield* put(sessionEnded());
      return;
    }
  } finally {
    pending.since = null;
    platform.setLeaveGuard(false);
  }
}

function* holdPendingStarts(pending: PendingStart) {
  for (;;) {
    if ((yield* select(selectSessionStatus)) === 'connecting') yield* call(holdStart, pending);
    else yield* take(startRequested.type);
  }
}

export function* liveLoader(load: LiveLoader) {
  const pending: PendingStart = { since: null };
  const holder = yield* fork(holdPendingStarts, pending);
  yield* race({ shown: call(presessionShown), start: take(startRequested.type) });
  let chunk: LiveChunk | null = null;
  for (let failures = 0; chunk === null; failures += 1) {
    try {
      // A promise (import()) is awaited; a module given as is (tests) is taken at once.
      chunk = (yield* call(load)) as LiveChunk;
    } catch (error) {
      log.warn('the live chunk did not load', { error: String(error), failures: failures + 1 });
      if ((yield* select(selectSessionStatus)) === 'connecting') {
        yield* put(alertShown({ id: catalogue.appLoadFailed.id }, 'reload'));
        yield* put(endTriggered('startFailed'));
      }
      const wait = LIVE_CHUNK_RETRY_MS[Math.min(failures, LIVE_CHUNK_RETRY_MS.length - 1)] ?? 30_000;
      yield* race({ later: delay(wait), start: take(startRequested.type) });
    }
  }
  const pendingForMs = pending.since === null ? null : Date.now() - pending.since;
  yield* cancel(holder);
  if (chunk.createServices) {
    const core = yield* coreServices();
    yield* setContext({ services: { ...core, ...chunk.createServices() } });
  }
  if (pendingForMs !== null) log.info('the live chunk is here: starting the session that waited for it', { pendingForMs });
  yield* call([chunk, chunk.liveSaga], { pendingForMs });
}
