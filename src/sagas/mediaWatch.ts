/**
 * Watching one WHEP connection's media (media.ts supervises the session's): the browser's
 * reports of its state, and the media itself, polled, so that media which stopped while the
 * connection still says connected counts as a drop at once, and media that came back by
 * itself is recognised before a reconnect replaces it.
 */
import { call, delay, put, race, take } from 'typed-redux-saga';
import { catalogue } from '../features/notices/messages.ts';
import { mediaStateChanged, networkChangeSuspected } from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import type { WhepConnection } from '../services/whep.ts';
import { peerChannel } from './channels/peerChannel.ts';
import { endWithAlert } from './sessionEnd.ts';

const log = createLogger('media');

/** Any failure of the session's first connection is the catalogue's ICE error. */
export const iceError = () => endWithAlert('iceError', { id: catalogue.iceError.id });
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
export function* watchUntilDropped(connection: WhepConnection, state: { connected: boolean }): Generator<unknown, MediaDrop> {
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
export function* untilMediaAgain(connection: WhepConnection) {
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
export function* untilConnected(connection: WhepConnection) {
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
