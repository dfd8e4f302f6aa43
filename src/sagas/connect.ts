/**
 * The start of a session, from the tap on Start chat to the playing avatar:
 *
 *   route → start_live → signaling (forked) ∥ stream poll → room joined → WHEP → video plays → say_hello
 *   (the WHEP offer is prepared in parallel, from the start_live request on)
 *
 * /get/route runs before /start_live so that a refused route never starts a room.
 *
 * Signaling opens as soon as both answers are in, so a lost channel aborts the
 * stream poll (docs/requirements.md R90) instead of being discovered after it.
 *
 * Every step throws a SessionEnd on failure. The signaling and media tasks are
 * forked here and live until the session saga cancels this saga.
 */
import type { Action } from '@reduxjs/toolkit';
import { call, delay, fork, join, put, race, select, take } from 'typed-redux-saga';
import { selectDeviceId, selectUserId } from '../features/account/accountSlice.ts';
import { selectLang } from '../features/locale/localeSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { alertDismissed, alertShown, type NoticeMessage } from '../features/notices/noticesSlice.ts';
import {
  connectPhaseReached,
  liveStarted,
  roomJoined,
  selectSessionStatus,
  signalingStateChanged,
  START_TIMEOUT_MS,
  videoCanPlay,
  videoPlayBlocked,
  videoPlaying,
  videoWatchdogFired,
} from '../features/session/sessionSlice.ts';
import { HttpError } from '../services/http.ts';
import { LiveError } from '../services/live.ts';
import { createLogger } from '../services/logger.ts';
import { services } from './context.ts';
import { keepScreenOn } from './wakeLock.ts';
import { openMedia, superviseMedia } from './media.ts';
import { waitForStream } from './polling.ts';
import { endWithAlert, endWithToast, SessionEnd } from './sessionEnd.ts';
import { watchNetwork } from './networkWatch.ts';
import { runSignaling, type SignalingMemory } from './signaling.ts';
import type { SignalingLink } from './signalingLink.ts';

const log = createLogger('session');

export const CANPLAY_WATCHDOG_MS = 5000;

/** The room started by /start_live, kept where the ending sequence can see it even if a later step fails. */
export interface RoomRef {
  id: string | null;
  /**
   * The start_live request while it is in flight: its room id, or null when it failed. The
   * server makes the room when the request arrives, so a session that ends before the
   * answer must still learn the id to stop the room (the ending does that in the background).
   */
  starting: Promise<string | null> | null;
}

function* fetchRoute(uid: string, room: RoomRef, signal: AbortSignal) {
  const { live } = yield* services();
  try {
    const route = yield* call([live, live.getRoute], { uid }, signal);
    if (room.id === null) yield* put(connectPhaseReached('startLive'));
    return route;
  } catch (error) {
    if (error instanceof LiveError && error.kind === 'routeRefused' && error.serverText) {
      throw endWithAlert('startFailed', { text: error.serverText });
    }
    throw endWithAlert('startFailed', { id: catalogue.routeFailed.id });
  }
}

/**
 * What a start_live that failed without words of its own says: the service could not be
 * reached (the visitor's network, most likely), or it answered but started nothing (a 5xx, a
 * refusal without errmsg, an answer without a room).
 */
function startFailureNotice(error: unknown) {
  const cause = error instanceof LiveError ? error.cause : error;
  return cause instanceof HttpError && cause.kind === 'network' ? catalogue.startUnreachable : catalogue.startFailed;
}

function* startRoom(params: { appId: string; uid: string; deviceId: string }, room: RoomRef) {
  const { live } = yield* services();
  // start_live gets the whole start budget instead of the 10 s HTTP default, so a slow
  // avatar boot ends the session by the 15 s rule, silently. It is not aborted when the
  // session ends (Cancel, a hidden page, the 15 s rule): the room it makes must be stopped,
  // and only its answer says which one. Its own timeout bounds it.
  const request = live.startLive(params, undefined, START_TIMEOUT_MS);
  room.starting = request.then(
    (started) => started.roomId,
    () => null,
  );
  try {
    const started = yield* call(() => request);
    room.id = started.roomId;
    yield* put(liveStarted({ roomId: started.roomId }));
    return started;
  } catch (error) {
    // Only the 15 s limit ends silently (R46); every other failure is said (R118).
    if (error instanceof LiveError && error.timedOut) throw new SessionEnd('timeout');
    if (error instanceof LiveError && error.serverText) throw endWithAlert('startFailed', { text: error.serverText });
    log.warn('start_live failed', { error: String(error) });
    throw endWithAlert('startFailed', { id: startFailureNotice(error).id });
  }
}

/** While no video frame has arrived, the watchdog looks again this often instead of asking for a tap. */
export const FIRST_FRAME_RECHECK_MS = 1000;

/**
 * Whether the avatar's video has brought a frame yet, from the receiver's stats. A browser
 * lists inbound video only once packets arrive; without frames there is nothing a tap could
 * play. When the stats cannot be read, the answer is yes: the watchdog then asks as before.
 */
function* videoFrameArrived() {
  const { livePeer } = yield* services();
  try {
    const report = yield* call([livePeer, livePeer.getStats]);
    if (!report) return false;
    let frames = 0;
    report.forEach((stat: { type?: string; kind?: string; framesReceived?: number; framesDecoded?: number }) => {
      if (stat.type === 'inbound-rtp' && stat.kind === 'video') frames = Math.max(frames, stat.framesReceived ?? 0, stat.framesDecoded ?? 0);
    });
    return frames > 0;
  } catch (error) {
    log.warn('could not read the video stats', { error: String(error) });
    return true;
  }
}

/** canplay or playing, or null after `ms`. */
function* videoStartedWithin(ms: number) {
  const { started } = yield* race({ started: take([videoCanPlay.type, videoPlaying.type]), timeout: delay(ms) });
  return started ?? null;
}

/**
 * The UI owns the <video> element: it calls play() and reports canplay /
 * playing / play refused. Without canplay 5 s after the stream arrived, or when
 * autoplay is refused, the visitor is asked to tap to play. That request is an
 * alert because the live screen (and its own tap target) stays covered by the
 * pre-session screen until the video plays. Every way out of it leads somewhere:
 * Tap to play plays (a user gesture), OK ends the session and stops its room.
 *
 * No canplay because no frame has come at all (a media server that answered but sends
 * nothing, or a first keyframe that is late) is not a case for a tap: the photo stays, the
 * browser keeps asking the sender for a keyframe (PLI), and the session's start limit ends a
 * session whose video never comes, silently, as the specification's start timeout does.
 */
function* waitForVideo() {
  let started = yield* videoStartedWithin(CANPLAY_WATCHDOG_MS);
  let waitedForFrame = false;
  while (!started && !(yield* videoFrameArrived())) {
    if (!waitedForFrame) log.warn('no video frame yet at the canplay watchdog: waiting for one, not asking for a tap');
    waitedForFrame = true;
    started = yield* videoStartedWithin(FIRST_FRAME_RECHECK_MS);
  }
  let asking: string | null = null;
  const ask = function* (message: NoticeMessage) {
    asking = (yield* put(alertShown(message, 'tapToPlay'))).payload.key;
  };
  if (!started) {
    log.warn('no canplay within the watchdog');
    yield* put(videoWatchdogFired());
    // Says what the tap does: the specification's "refresh" text is for a manual play that failed (R87).
    yield* ask({ id: catalogue.videoNotStarted.id });
  }
  while ((yield* select(selectSessionStatus)) !== 'live') {
    const action = yield* take([videoPlaying.type, videoPlayBlocked.type, alertShown.type, alertDismissed.type]);
    if (videoPlayBlocked.match(action)) yield* ask({ id: catalogue.soundBlocked.id });
    // Another alert took the place of ours: its OK says nothing about playing.
    else if (alertShown.match(action) && action.payload.key !== asking) asking = null;
    else if (alertDismissed.match(action) && asking !== null) {
      log.info('the visitor declined to play the avatar: ending the session');
      throw new SessionEnd('cancelled');
    }
  }
}

/** How long a greeting waits for a signaling channel that is reconnecting. */
export const GREETING_WAIT_MS = 10_000;

/** Sends say_hello; on a channel that is reconnecting, once it is open again (its offer_2 goes first). */
function* greet(link: SignalingLink) {
  const send = function* () {
    const lang = yield* select(selectLang);
    return link.send({ type: 'say_hello', data: { lang } });
  };
  if (yield* send()) return;
  const { open } = yield* race({
    open: take((a: Action) => signalingStateChanged.match(a) && a.payload === 'open'),
    timeout: delay(GREETING_WAIT_MS),
  });
  if (!open || !(yield* send())) log.warn('greeting not sent: the signaling channel stayed closed');
}

export function* connectSession(link: SignalingLink, room: RoomRef, signal: AbortSignal) {
  const { whep, platform } = yield* services();
  if (!whep.isSupported()) throw endWithAlert('startFailed', { id: catalogue.webrtcUnsupported.id });
  const uid = yield* select(selectUserId);
  const deviceId = yield* select(selectDeviceId);
  if (!uid || !deviceId) throw endWithToast('startFailed', { id: catalogue.userIdRequired.id });

  // app_id: the client has no separate application id, and the account id is
  // what identifies the avatar configuration, so the uid is sent as app_id.
  const appId = uid;
  // The tap's own answer (Cancel and "Connecting") paints first: the start's requests and
  // their bookkeeping would otherwise be part of Start chat's interaction to next paint.
  // About a frame later; the start limit and Cancel already run (runSession).
  yield* call([platform, platform.afterNextPaint]);
  // Sequential on purpose: a refused route must never leave a started avatar room behind
  // (in parallel, the cancelled start_live's room id was lost and the room never stopped).
  const route = yield* call(fetchRoute, uid, room, signal);
  const starting = yield* fork(startRoom, { appId, uid, deviceId }, room);
  // The peer connection and its offer (ICE gathering included) are made while start_live
  // and the stream poll run, so WHEP can post the moment the stream is up. After the
  // request has left, so this work is not in front of it.
  if (route.iceServers) whep.prepare(signal, route.iceServers);
  else whep.prepare(signal);
  const started = yield* join(starting);

  yield* put(connectPhaseReached('stream'));
  const identity = { room_id: started.roomId, app_id: appId, deviceId };
  const signaling: SignalingMemory = { joined: false };
  yield* fork(runSignaling, link, { url: route.websockLink, identity }, signaling);
  yield* fork(watchNetwork);
  const target = { srsLink: route.srsLink, roomId: started.roomId, ...(route.iceServers ? { iceServers: route.iceServers } : {}) };
  yield* call(waitForStream, target, signal);
  // WHEP waits for the room to answer asr_ready.
  if (!signaling.joined) yield* take(roomJoined.type);

  yield* put(connectPhaseReached('media'));
  const connection = yield* call(openMedia, target, signal);
  yield* fork(superviseMedia, connection, target, signal);

  yield* put(connectPhaseReached('video'));
  yield* waitForVideo();
  // Hands-free calls: nobody touches the screen, and a locked screen ends the session.
  yield* fork(keepScreenOn);
  log.info('live', { roomId: started.roomId });
  // The greeting is asked for only now that the visitor can see and hear the avatar:
  // sent on asr_ready, its first words were spoken before the media had connected.
  yield* fork(greet, link);
}
