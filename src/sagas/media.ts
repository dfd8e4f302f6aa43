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
  mediaReconnectStarted,
  mediaStateChanged,
  networkChangeSuspected,
  selectSignalingState,
  signalingResumed,
  signalingStateChanged,
} from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import type { WhepConnection } from '../services/whep.ts';
import { peerChannel } from './channels/peerChannel.ts';
import { services } from './context.ts';
import { endWithAlert } from './sessionEnd.ts';

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
/** How often the live connection's media is looked at. */
export const MEDIA_POLL_MS = 250;
/**
 * Media that has not arrived this long while the connection says connected has dropped:
 * the stand-in's avatar sends audio every 20 ms and video frames 15 to 25 times a second,
 * so a second of nothing is no jitter.
 */
export const MEDIA_SILENCE_MS = 1000;
/**
 * Media that has not arrived this long makes the app doubt its path at once
 * (networkChangeSuspected 'media'): the signaling channel asks its socket then, so that on a
 * new network it has rejoined the room by the time the media reconnects.
 */
export const MEDIA_DOUBT_MS = 300;
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

const iceError = () => endWithAlert('iceError', { id: catalogue.iceError.id });
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
 * How the watch of one connection ended: the browser reported it dropped ('state'), or its
 * media stopped while it still said connected ('silent', at `heardAt`, its last media).
 */
export type MediaDrop = { kind: 'state'; state: RTCPeerConnectionState } | { kind: 'silent'; heardAt: number };

/** Follows the media arriving on `connection`: `heardAt` is when it last changed. */
interface MediaHeard {
  mark: number | null;
  heardAt: number;
}

/** Asks the connection whether media arrived since `heard`; true when it did. */
function* mediaArrived(connection: WhepConnection, heard: MediaHeard) {
  let mark: number | null;
  try {
    mark = yield* call([connection, connection.mediaMark]);
  } catch (error) {
    log.debug('media mark unreadable', { error: String(error) });
    return false;
  }
  if (mark === null || mark === heard.mark) return false;
  heard.mark = mark;
  heard.heardAt = Date.now();
  return true;
}

/**
 * Follows one peer connection until it drops. `state.connected` records that the
 * session's media has connected at least once, which changes what a failure means.
 *
 * The media itself is watched too: once it has flowed on this connection, MEDIA_SILENCE_MS
 * without a packet while the connection still says connected is a drop. A media server
 * that dropped the player without a word (SRS's API kick) or a network that changed under
 * the connection is noticed this way at once; the browser's own ICE checks take 5 to 10 s
 * to say disconnected. Before the first media the start's own limits apply.
 */
function* watchUntilDropped(connection: WhepConnection, state: { connected: boolean }): Generator<unknown, MediaDrop> {
  const chan = peerChannel(connection);
  const heard: MediaHeard = { mark: null, heardAt: Date.now() };
  /** The app was told of this silence (MEDIA_DOUBT_MS). */
  let doubted = false;
  try {
    for (;;) {
      const { event } = yield* race({ event: take(chan), poll: delay(MEDIA_POLL_MS) });
      if (!event) {
        if (connection.connectionState() !== 'connected') continue;
        const armed = heard.mark !== null;
        if ((yield* mediaArrived(connection, heard)) || !armed) {
          doubted = false;
          continue;
        }
        const silentMs = Date.now() - heard.heardAt;
        if (silentMs >= MEDIA_DOUBT_MS && !doubted) {
          doubted = true;
          // The path may have changed under the whole session: the signaling channel checks its own.
          yield* put(networkChangeSuspected('media'));
        }
        if (silentMs < MEDIA_SILENCE_MS) continue;
        log.warn('media dropped: nothing arrived while the connection says connected', { silentMs: Date.now() - heard.heardAt });
        return { kind: 'silent', heardAt: heard.heardAt };
      }
      if (event.type === 'iceCandidateError') {
        // Informational: one unreachable STUN/TURN URL or interface says nothing of the
        // candidates that do connect. Only the connection's own state decides.
        log.info('ICE candidate error', { code: event.errorCode, text: event.errorText.slice(0, 120) });
        continue;
      }
      yield* put(mediaStateChanged(event.state));
      if (event.state === 'connected') state.connected = true;
      if (!state.connected) {
        // Before the first connect only 'failed' is final; a 'disconnected' may still recover,
        // and the session's 15 s start limit bounds the wait.
        if (event.state === 'failed' || event.state === 'closed') throw iceError();
        continue;
      }
      // 'closed' too: a connection the browser closed (spec: connected, disconnected, closed and failed are handled).
      if (event.state === 'disconnected' || event.state === 'failed' || event.state === 'closed') {
        log.warn('media dropped', { state: event.state });
        return { kind: 'state', state: event.state };
      }
    }
  } finally {
    chan.close();
  }
}

/**
 * Polls in a row with new media that say a dropped connection came back. One change of the
 * mark is not enough: on a loaded phone a frame that arrived before the drop may be played out
 * (and stamped) a second late, after the silence was noticed, while the server has already
 * closed the peer; calling the reconnect off on it left a frozen avatar that looked live.
 */
export const MEDIA_BACK_POLLS = 3;

/** Resolves once media flows again on a connection that dropped without closing (it came back by itself). */
function* untilMediaAgain(connection: WhepConnection) {
  const heard: MediaHeard = { mark: null, heardAt: 0 };
  yield* mediaArrived(connection, heard);
  let inRow = 0;
  for (;;) {
    yield* delay(MEDIA_POLL_MS);
    const arrived = (yield* mediaArrived(connection, heard)) && connection.connectionState() === 'connected';
    inRow = arrived ? inRow + 1 : 0;
    if (inRow >= MEDIA_BACK_POLLS) return true;
  }
}

/** Resolves true once the new connection is connected, false when it fails first. */
function* untilConnected(connection: WhepConnection) {
  const chan = peerChannel(connection);
  try {
    for (;;) {
      const event = yield* take(chan);
      if (event.type !== 'connectionState') continue;
      yield* put(mediaStateChanged(event.state));
      if (event.state === 'connected') return true;
      if (event.state === 'failed' || event.state === 'closed') return false;
    }
  } finally {
    chan.close();
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

/**
 * Up to MEDIA_RECONNECTS new WHEP connections, MEDIA_RECONNECT_DELAY_MS apart, the first
 * that long after the media stopped (its last packet, for a path that went silent; the
 * browser's report otherwise). A dropped connection that is still open is watched while
 * the first attempt waits: media flowing on it again calls the reconnect off (null).
 */
function* reconnectMedia(target: MediaTarget, signal: AbortSignal, dropped: DroppedMedia, news: NetworkNews) {
  const { whep, livePeer } = yield* services();
  let old = dropped.old;
  const letGo = () => {
    if (!old) return;
    livePeer.set(null);
    old.close();
    old = null;
  };
  let recovered = false;
  /** Attempts made, counted or not. */
  let tries = 0;
  /** Attempts that count against MEDIA_RECONNECTS (one that met a dead network may not). */
  let counted = 0;
  try {
    while (counted < MEDIA_RECONNECTS) {
      const attempt = counted + 1;
      yield* put(mediaReconnectStarted());
      // Counted or not, attempts go 2 s apart; the first 2 s after the media stopped, or at
      // once when the browser said its network changed just before.
      const changedNetwork = Date.now() - news.changedAt < NETWORK_CHANGE_WINDOW_MS;
      const wait =
        tries === 0 ? (changedNetwork ? 0 : Math.max(0, MEDIA_RECONNECT_DELAY_MS - (Date.now() - dropped.droppedAt))) : MEDIA_RECONNECT_DELAY_MS;
      const first = tries === 0;
      tries += 1;
      // The attempt's own signal: aborted when the attempt times out or the session ends.
      const attemptAbort = new AbortController();
      const abortAttempt = () => attemptAbort.abort();
      signal.addEventListener('abort', abortAttempt, { once: true });
      const held: { candidate: WhepConnection | null } = { candidate: null };
      let succeeded = false;
      let deadNetwork = false;
      try {
        // The dropped connection is kept through every attempt: media flowing on it again (a
        // blackout over, the path back) calls the reconnect off, whichever attempt is under
        // way. An attempt made while the network is down fails (no candidate can be gathered)
        // and must not cost the visitor a connection that is about to come back.
        const { back, ok } = yield* race({
          back: old ? call(untilMediaAgain, old) : call(never),
          ok: call(function* () {
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
            const { connected } = yield* race({
              connected: call(function* () {
                held.candidate = yield* call([whep, whep.connect], target, attemptAbort.signal);
                return yield* call(untilConnected, held.candidate);
              }),
              timeout: delay(MEDIA_CONNECT_TIMEOUT_MS),
            });
            return connected ?? false;
          }),
        });
        if (back) {
          log.info('the dropped media came back by itself: no reconnect');
          recovered = true;
          return null;
        }
        if (ok && held.candidate) {
          log.info('media reconnected', { attempt });
          const connected = held.candidate;
          held.candidate = null;
          succeeded = true;
          letGo();
          return connected;
        }
        log.warn('media reconnect attempt did not connect', { attempt, withinMs: MEDIA_CONNECT_TIMEOUT_MS });
      } catch (error) {
        if (signal.aborted) throw error;
        deadNetwork = metDeadNetwork(error);
        log.warn('media reconnect attempt failed', { attempt, error: String(error) });
      } finally {
        signal.removeEventListener('abort', abortAttempt);
        // A failed attempt: its offer, WHEP request or ICE gathering, if still under way, stops, and its peer closes.
        if (!succeeded) attemptAbort.abort();
        held.candidate?.close();
      }
      // While the dropped connection has not failed (its ICE still hopes: a blackout, a tunnel),
      // an attempt that met the same dead network (no candidate gathered, no answer to its
      // request; a server's refusal counts) is not counted, for as long as three whole attempts may take: the
      // old path may come back, and an attempt after the network did will connect.
      const withinWindow = Date.now() - dropped.droppedAt < MEDIA_RECONNECTS * (MEDIA_RECONNECT_DELAY_MS + MEDIA_CONNECT_TIMEOUT_MS);
      if (deadNetwork && withinWindow && old && !['failed', 'closed'].includes(old.connectionState())) {
        log.info('an attempt met a network that is down while the dropped connection may come back: not counted', { attempt });
      } else {
        counted += 1;
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
