/**
 * The avatar's media connection: the first WHEP connect, then supervision of
 * the peer connection for the rest of the session. Before it has ever
 * connected, a failed connection is the catalogue's ICE error (candidate errors
 * are only logged: other candidates may connect). Afterwards a disconnect (while signaling is open) is answered with
 * a new WHEP connection, up to 3 attempts 2 s apart.
 */
import { call, delay, put, race, select, take } from 'typed-redux-saga';
import { catalogue } from '../features/notices/messages.ts';
import {
  mediaReconnectStarted,
  mediaStateChanged,
  selectSignalingState,
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

export interface MediaTarget {
  srsLink: string;
  roomId: string;
  /** The session's ICE servers when its route named them (every reconnect uses them too). */
  iceServers?: RTCIceServer[];
}

const iceError = () => endWithAlert('iceError', { id: catalogue.iceError.id });

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
 * Follows one peer connection until it drops. `state.connected` records that the
 * session's media has connected at least once, which changes what a failure means.
 */
function* watchUntilDropped(connection: WhepConnection, state: { connected: boolean }) {
  const chan = peerChannel(connection);
  try {
    for (;;) {
      const event = yield* take(chan);
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
        return;
      }
    }
  } finally {
    chan.close();
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

function* reconnectMedia(target: MediaTarget, signal: AbortSignal) {
  const { whep } = yield* services();
  // Reconnecting makes sense only while the room is reachable; a lost channel ends the session on its own.
  if ((yield* select(selectSignalingState)) !== 'open') {
    yield* take((a: unknown) => signalingStateChanged.match(a) && a.payload === 'open');
  }
  for (let attempt = 1; attempt <= MEDIA_RECONNECTS; attempt += 1) {
    yield* put(mediaReconnectStarted());
    yield* delay(MEDIA_RECONNECT_DELAY_MS);
    // The attempt's own signal: aborted when the attempt times out or the session ends.
    const attemptAbort = new AbortController();
    const abortAttempt = () => attemptAbort.abort();
    signal.addEventListener('abort', abortAttempt, { once: true });
    const held: { candidate: WhepConnection | null } = { candidate: null };
    let succeeded = false;
    try {
      const { ok } = yield* race({
        ok: call(function* () {
          held.candidate = yield* call([whep, whep.connect], target, attemptAbort.signal);
          return yield* call(untilConnected, held.candidate);
        }),
        timeout: delay(MEDIA_CONNECT_TIMEOUT_MS),
      });
      if (ok && held.candidate) {
        log.info('media reconnected', { attempt });
        const connected = held.candidate;
        held.candidate = null;
        succeeded = true;
        return connected;
      }
      log.warn('media reconnect attempt did not connect', { attempt, withinMs: MEDIA_CONNECT_TIMEOUT_MS });
    } catch (error) {
      if (signal.aborted) throw error;
      log.warn('media reconnect attempt failed', { attempt, error: String(error) });
    } finally {
      signal.removeEventListener('abort', abortAttempt);
      // A failed attempt: its WHEP request or ICE gathering, if still under way, stops, and its peer closes.
      if (!succeeded) attemptAbort.abort();
      held.candidate?.close();
    }
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
  remoteMedia.set(first.stream);
  livePeer.set(first);
  try {
    for (;;) {
      yield* watchUntilDropped(current, state);
      livePeer.set(null);
      current.close();
      owned = null;
      current = yield* reconnectMedia(target, signal);
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
