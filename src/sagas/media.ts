/**
 * The avatar's media connection: the first WHEP connect, then supervision of
 * the peer connection for the rest of the session. Before it has ever
 * connected, a failed connection is the catalogue's ICE error (candidate errors
 * are only logged: other candidates may connect). Afterwards a drop (the browser's report,
 * or media that stopped while the connection says connected) is answered with a new WHEP
 * connection, up to 3 attempts 2 s apart, the first 2 s after the media stopped, or at once
 * when the browser has said its network changed or the signaling channel has rejoined the
 * room on a new socket (a path that died: signaling.ts).
 */
import type { Action } from '@reduxjs/toolkit';
import { call, delay, fork, put, race, select, take, takeEvery } from 'typed-redux-saga';
import { catalogue } from '../features/notices/messages.ts';
import {
  mediaAttemptStarted,
  mediaReconnected,
  mediaReconnectStarted,
  mediaStateChanged,
  networkChangeSuspected,
  selectSignalingState,
  signalingResumed,
  signalingStateChanged,
} from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import type { WhepConnection } from '../services/whep.ts';
import { endWithAlert } from './sessionEnd.ts';
import { services } from './context.ts';
import { iceError, untilConnected, untilMediaAgain, watchUntilDropped } from './mediaWatch.ts';

export { MEDIA_BACK_POLLS, MEDIA_DOUBT_MS, MEDIA_POLL_MS, MEDIA_SILENCE_MS, type MediaDrop } from './mediaWatch.ts';

const log = createLogger('media');

export const MEDIA_RECONNECTS = 3;
export const MEDIA_RECONNECT_DELAY_MS = 2000;
/**
 * A reconnect attempt (its WHEP request, ICE gathering, and connecting) that has not
 * connected after this long has failed. Bounding the whole attempt, not only the wait after
 * the answer, keeps the specification's 3 attempts 2 s apart to at most 21 s: in a tunnel, a
 * relay that cannot be reached stalls ICE gathering for ~40 s, and a WHEP request over a
 * dead link for the 10 s HTTP timeout, which left a visitor watching a frozen avatar for
 * over a minute. Connecting through a relay at 300 ms RTT takes about 3 s.
 */
export const MEDIA_CONNECT_TIMEOUT_MS = 5_000;
/** A reconnect attempt's offer is made this long before its WHEP request goes (see waitForAttempt). */
export const PREPARE_LEAD_MS = 1000;
/**
 * Media that stops within this long after the browser said its network changed (back
 * online, a new connection type) was cut by that change: its first new WHEP goes at once,
 * not 2 s later. The old path is gone for good, and a phone that changed networks should
 * show a moving avatar again within 3 s of its new address being up.
 */
export const NETWORK_CHANGE_WINDOW_MS = 10_000;

/** The browser's own signs that its network changed (not the media's own silence). */
const isNetworkChange = (a: Action) => networkChangeSuspected.match(a) && a.payload !== 'media';
/** How long an attempt waits for a signaling channel that is resuming to rejoin the room. */
export const RESUME_WAIT_MS = 2_000;
/** News that a reconnect waiting for its next attempt acts on at once. */
const isPathNews = (a: Action) => isNetworkChange(a) || signalingResumed.match(a);
/** When the browser last said its network changed (Date.now()), shared by the watch and the reconnects. */
interface NetworkNews {
  changedAt: number;
}

export interface MediaTarget {
  srsLink: string;
  roomId: string;
  /** The session's ICE servers when its route named them (every reconnect uses them too). */
  iceServers?: RTCIceServer[];
}

/** A race entry that is not armed; a new promise each time, so finished races are not kept. */
const never = () => new Promise<never>(() => {});

/** The session's first WHEP connection; any failure to negotiate it is an ICE error. */
export function* openMedia(target: MediaTarget, signal: AbortSignal) {
  const { whep } = yield* services();
  try {
    return yield* call([whep, whep.connect], target, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    log.warn('first WHEP connect failed', { error: String(error) });
    throw iceError();
  }
}

/**
 * Waits `ms` before an attempt; the attempt's offer (peer connection, ICE gathering) is
 * made PREPARE_LEAD_MS before its end, on whatever network the phone has by then, so the
 * WHEP request leaves the moment the wait is over.
 */
function* waitForAttempt(ms: number, attemptSignal: AbortSignal, target: MediaTarget, news: NetworkNews) {
  const { whep } = yield* services();
  const lead = Math.min(ms, PREPARE_LEAD_MS);
  // The browser saying its network changed ends the wait: the old path will not come back,
  // and the new one is there to be used. So does the signaling channel rejoining the room on
  // a new socket (a path that died): a media server that knows its viewers by the room's
  // signaling (the stand-in's owner check) refused an attempt made before it.
  const { changed } = yield* race({ waited: delay(ms - lead), changed: take(isPathNews) });
  if (changed) {
    news.changedAt = Date.now();
    log.info('the path changed: the attempt goes now', { why: changed.type });
  }
  // With the session's own ICE servers (the route's relay credential): an offer made with the
  // build's would gather no relay candidate under ?relay=1.
  if (target.iceServers) whep.prepare(attemptSignal, target.iceServers);
  else whep.prepare(attemptSignal);
  if (changed) return;
  const { changed: late } = yield* race({ waited: delay(lead), changed: take(isPathNews) });
  if (late) news.changedAt = Date.now();
}

/**
 * An attempt that never reached the media server: no candidate could be gathered, or its
 * request got no answer. One the server answered (a refusal, 503) says nothing of the network.
 */
function metDeadNetwork(error: unknown): boolean {
  const { name, kind } = (error ?? {}) as { name?: unknown; kind?: unknown };
  if (name === 'WhepError') return kind === 'ice';
  if (name === 'HttpError') return kind === 'network' || kind === 'timeout';
  return false;
}

/** Signaling states in which the room cannot be reached yet: a media reconnect waits for the channel. */
const CHANNEL_DOWN: readonly string[] = ['closed', 'connecting', 'reconnecting'];

interface DroppedMedia {
  /** The dropped connection, while it may still come back by itself (null: let go). */
  old: WhepConnection | null;
  /** When the media stopped (Date.now()): the first attempt comes MEDIA_RECONNECT_DELAY_MS after it. */
  droppedAt: number;
}

/** How one reconnect attempt ended. */
type AttemptOutcome =
  | { kind: 'connected'; connection: WhepConnection }
  /** Media flows again on the dropped connection: no reconnect needed. */
  | { kind: 'back' }
  /** `deadNetwork`: it never reached the media server (metDeadNetwork). */
  | { kind: 'failed'; deadNetwork: boolean };

/**
 * One attempt: wait `wait` (its offer made PREPARE_LEAD_MS before the end), wait for a signaling
 * channel that is down, then one WHEP connection, the whole of it bounded by
 * MEDIA_CONNECT_TIMEOUT_MS. Media flowing again on the dropped connection `old` ends it as 'back'.
 */
function* attemptReconnect(
  target: MediaTarget,
  signal: AbortSignal,
  wait: number,
  first: boolean,
  old: WhepConnection | null,
  news: NetworkNews,
): Generator<unknown, AttemptOutcome> {
  const { whep } = yield* services();
  let succeeded = false;
  // The attempt's own signal: aborted when the attempt fails or the session ends.
  const attemptAbort = new AbortController();
  const abortAttempt = () => attemptAbort.abort();
  signal.addEventListener('abort', abortAttempt, { once: true });
  const held: { candidate: WhepConnection | null } = { candidate: null };
  try {
    const { back, connected } = yield* race({
      // The dropped connection is watched through the whole attempt: a blackout that ends, a
      // path that comes back, calls the reconnect off whichever attempt is under way.
      back: old ? call(untilMediaAgain, old) : call(never),
      connected: call(function* () {
        yield* call(waitForAttempt, wait, attemptAbort.signal, target, news);
        // Reconnecting makes sense only while the room is reachable; a lost channel ends the
        // session on its own.
        const channel = yield* select(selectSignalingState);
        if (CHANNEL_DOWN.includes(channel)) {
          yield* take((a: unknown) => signalingStateChanged.match(a) && a.payload === 'open');
        } else if (channel === 'resuming' && first) {
          // A channel resuming on a new network rejoins the room in a moment; a media server
          // that knows its viewers by the room's signaling (the stand-in) refuses an attempt
          // made before. The first attempt only, and not for long: on a network that is
          // down (a tunnel) every attempt fails either way, and the visitor would be told later.
          yield* race({ resumed: take(signalingResumed.match), waited: delay(RESUME_WAIT_MS) });
        }
        const { ok } = yield* race({
          ok: call(function* () {
            held.candidate = yield* call([whep, whep.connect], target, attemptAbort.signal);
            return yield* call(untilConnected, held.candidate);
          }),
          timeout: delay(MEDIA_CONNECT_TIMEOUT_MS),
        });
        return ok ?? false;
      }),
    });
    if (back) return { kind: 'back' };
    if (connected && held.candidate) {
      const connection = held.candidate;
      held.candidate = null;
      succeeded = true;
      return { kind: 'connected', connection };
    }
    log.warn('media reconnect attempt did not connect', { withinMs: MEDIA_CONNECT_TIMEOUT_MS });
    return { kind: 'failed', deadNetwork: false };
  } catch (error) {
    if (signal.aborted) throw error;
    log.warn('media reconnect attempt failed', { error: String(error) });
    return { kind: 'failed', deadNetwork: metDeadNetwork(error) };
  } finally {
    signal.removeEventListener('abort', abortAttempt);
    // Not connected: its offer, WHEP request or ICE gathering, if still under way, stops, and its peer closes.
    if (!succeeded) attemptAbort.abort();
    held.candidate?.close();
  }
}

/**
 * After a drop, the reconnect:
 * - attempts go MEDIA_RECONNECT_DELAY_MS apart, the first that long after the media stopped
 *   (its last packet, for a path that went silent; the browser's report otherwise), or at once
 *   when the browser said its network changed within NETWORK_CHANGE_WINDOW_MS;
 * - MEDIA_RECONNECTS failed attempts end the session with reconnectFailed;
 * - the dead-network rule: an attempt that never reached the media server (no candidate, no
 *   answer) is not counted while the dropped connection may still come back (not failed nor
 *   closed) and three whole attempts' time has not passed since the drop: the old path may
 *   come back, and an attempt made after the network did will connect;
 * - media flowing again on the dropped connection calls the reconnect off (null).
 */
function* reconnectMedia(target: MediaTarget, signal: AbortSignal, dropped: DroppedMedia, news: NetworkNews) {
  const { livePeer } = yield* services();
  let old = dropped.old;
  const letGo = () => {
    if (!old) return;
    livePeer.set(null);
    old.close();
    old = null;
  };
  const mayComeBack = () =>
    old !== null &&
    !['failed', 'closed'].includes(old.connectionState()) &&
    Date.now() - dropped.droppedAt < MEDIA_RECONNECTS * (MEDIA_RECONNECT_DELAY_MS + MEDIA_CONNECT_TIMEOUT_MS);
  const firstWait = () =>
    Date.now() - news.changedAt < NETWORK_CHANGE_WINDOW_MS ? 0 : Math.max(0, MEDIA_RECONNECT_DELAY_MS - (Date.now() - dropped.droppedAt));
  yield* put(mediaReconnectStarted());
  let recovered = false;
  /** Failed attempts that count against MEDIA_RECONNECTS. */
  let failed = 0;
  try {
    for (let attempt = 1; failed < MEDIA_RECONNECTS; attempt += 1) {
      yield* put(mediaAttemptStarted({ attempt }));
      const wait = attempt === 1 ? firstWait() : MEDIA_RECONNECT_DELAY_MS;
      const outcome = yield* attemptReconnect(target, signal, wait, attempt === 1, old, news);
      if (outcome.kind === 'back') {
        log.info('the dropped media came back by itself: no reconnect');
        recovered = true;
        yield* put(mediaReconnected({ how: 'back' }));
        return null;
      }
      if (outcome.kind === 'connected') {
        log.info('media reconnected', { attempt });
        letGo();
        yield* put(mediaReconnected({ how: 'new' }));
        return outcome.connection;
      }
      if (outcome.deadNetwork && mayComeBack()) {
        log.info('an attempt met a network that is down while the dropped connection may come back: not counted', { attempt });
      } else {
        failed += 1;
      }
    }
  } finally {
    if (!recovered) letGo();
  }
  throw endWithAlert('reconnectFailed', { id: catalogue.reconnectFailed.id });
}

/**
 * Owns the session's peer connection from the first connect to the end:
 * publishes its stream (remoteMedia) and state, and replaces it when it drops.
 * Ends only by cancellation or by throwing a SessionEnd.
 */
export function* superviseMedia(first: WhepConnection, target: MediaTarget, signal: AbortSignal) {
  const { remoteMedia, livePeer } = yield* services();
  // `owned` is what the finally block must close: null while between connections.
  let owned: WhepConnection | null = first;
  let current = first;
  const state = { connected: false };
  const news: NetworkNews = { changedAt: -Infinity };
  // Every sign from the browser is kept, whatever the loop below is waiting on (a getStats, a WHEP request).
  yield* fork(function* () {
    yield* takeEvery(isNetworkChange, () => {
      news.changedAt = Date.now();
    });
  });
  remoteMedia.set(first.stream);
  livePeer.set(first);
  try {
    for (;;) {
      const drop = yield* watchUntilDropped(current, state);
      // The path may have changed under the whole session: the signaling channel checks its own
      // (a silence told it already, at MEDIA_DOUBT_MS).
      if (drop.kind === 'state') yield* put(networkChangeSuspected('media'));
      // A connection that only went quiet or disconnected may come back while the first attempt waits.
      const recoverable = drop.kind === 'silent' || drop.state === 'disconnected';
      owned = null;
      if (!recoverable) {
        livePeer.set(null);
        current.close();
      }
      const next = yield* reconnectMedia(target, signal, {
        old: recoverable ? current : null,
        droppedAt: drop.kind === 'silent' ? drop.heardAt : Date.now(),
      }, news);
      if (next === null) {
        owned = current;
        continue;
      }
      current = next;
      owned = current;
      livePeer.set(current);
      remoteMedia.set(current.stream);
    }
  } finally {
    livePeer.set(null);
    owned?.close();
    remoteMedia.set(null);
    yield* put(mediaStateChanged('none'));
  }
}
