/**
 * The session's lifetime: idle → connecting → live → ending → idle.
 *
 * One session at a time. While one is connecting, another Start chat only
 * shows "please wait". The start (connectSession, which also keeps the
 * signaling and media tasks alive afterwards) races the 15 s start deadline and
 * every way a session can end; whichever wins, the same ending runs: the race
 * cancels everything the session started (socket with close_webrtc, peer
 * connection, timers, pending requests through the AbortSignal), then the
 * started room is stopped, then the session is idle again.
 */
import { call, fork, put, race, select, spawn, take } from 'typed-redux-saga';
import type { Task } from 'redux-saga';
import { selectDeviceId } from '../features/account/accountSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { alertShown, toastShown } from '../features/notices/noticesSlice.ts';
import {
  selectSessionStatus,
  sessionEnded,
  sessionEnding,
  START_TIMEOUT_MS,
  startRequested,
  videoCanPlay,
  videoPlaying,
  type EndReason,
} from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import { connectSession, type RoomRef } from './connect.ts';
import { deadlineAfter, endReasonOf, endings } from './endings.ts';
import { services } from './context.ts';
import { SessionEnd, type EndNotice } from './sessionEnd.ts';
import type { SignalingLink } from './signalingLink.ts';

const log = createLogger('session');

const forever = () => new Promise<never>(() => {});

/**
 * The 15 s start deadline (docs/requirements.md R46): resolves true if the media has not
 * produced a playable video 15 s after the start; once it has, never resolves (the session saga cancels it at the end).
 * `elapsedMs`: how long ago Start chat was tapped (a start that waited for the live chunk).
 */
function* startDeadline(elapsedMs: number) {
  const { late } = yield* race({
    late: deadlineAfter(START_TIMEOUT_MS, elapsedMs),
    media: take([videoCanPlay.type, videoPlaying.type]),
  });
  if (late) return true;
  return yield* call(forever);
}

function* showNotice(notice: EndNotice) {
  if (notice.kind === 'toast') yield* put(toastShown(notice.message));
  else yield* put(alertShown(notice.message, notice.action));
}

function* stopRoom(roomId: string, deviceId: string) {
  const { live } = yield* services();
  try {
    yield* call([live, live.stopLive], { roomId, deviceId });
  } catch (error) {
    // The server reclaims abandoned rooms; a failed stop must not keep the visitor waiting.
    log.warn('stop_live failed', { roomId, error: String(error) });
  }
}

function* stopRoomOnceStarted(starting: Promise<string | null>, deviceId: string) {
  const roomId = yield* call(() => starting);
  if (roomId === null) return;
  log.info('start_live answered after the session ended: stopping its room', { roomId });
  yield* call(stopRoom, roomId, deviceId);
}

export function* runSession(link: SignalingLink, elapsedMs = 0) {
  const { platform } = yield* services();
  const deviceId = yield* select(selectDeviceId);
  const controller = new AbortController();
  const room: RoomRef = { id: null, starting: null };
  let reason: EndReason = 'startFailed';
  // From Start chat on, connecting too (spec: leaving asks for confirmation): a room is
  // being made for the visitor, and leaving would only abandon it.
  platform.setLeaveGuard(true);
  try {
    const outcome = yield* race({
      // connectSession returns only when its forked signaling and media tasks do, which they never do normally.
      session: call(connectSession, link, room, controller.signal),
      ...endings(call(startDeadline, elapsedMs)),
    });
    const ended = endReasonOf(outcome);
    if (ended) reason = ended;
    else log.error('session tasks ended on their own');
  } catch (error) {
    if (error instanceof SessionEnd) {
      reason = error.reason;
      if (error.notice) yield* call(showNotice, error.notice);
    } else {
      log.error('session failed', { error: String(error) });
    }
  } finally {
    // Whatever is still in flight (fetches, WHEP) is abandoned here.
    controller.abort();
    platform.setLeaveGuard(false);
    log.info('session ending', { reason, roomId: room.id });
    yield* put(sessionEnding(reason));
    if (room.id !== null && deviceId) yield* call(stopRoom, room.id, deviceId);
    // A start_live still in flight: its room is stopped when its answer comes, without
    // holding up the ending (a task of its own, outlives this session's cancellation).
    else if (room.starting && deviceId) yield* spawn(stopRoomOnceStarted, room.starting, deviceId);
    yield* put(sessionEnded());
  }
}

/**
 * Starts a session on Start chat from idle; a Start chat while one is connecting only shows
 * "please wait". `pendingForMs`: a Start chat came that long before this saga ran
 * (liveLoader.ts), and the status still says connecting, so that session starts now, with
 * what is left of its 15 s.
 */
export function* sessionWatcher(link: SignalingLink, pendingForMs: number | null = null) {
  let current: Task | null = null;
  if (pendingForMs !== null && (yield* select(selectSessionStatus)) === 'connecting') current = yield* fork(runSession, link, pendingForMs);
  for (;;) {
    yield* take(startRequested.type);
    // The reducer has already run: 'connecting' means this tap started a session (or one is under way).
    const status = yield* select(selectSessionStatus);
    if (current?.isRunning()) {
      if (status === 'connecting') yield* put(toastShown({ id: catalogue.pleaseWait.id }));
      continue;
    }
    if (status !== 'connecting') continue;
    current = yield* fork(runSession, link);
  }
}
