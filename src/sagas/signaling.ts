/**
 * The session's signaling channel (PROTOCOL.md): connect, join the room with
 * offer_2 (again after every reconnect), report the first asr_ready (the start flow
 * greets once the avatar can be heard),
 * validate and publish every frame, reconnect up to 3 times 500 ms apart.
 *
 * A socket can also die without closing: a phone that moved to a new network keeps a
 * socket on an address it no longer has, and the browser learns of it only minutes later.
 * So the channel asks its socket, where the server answers `ping` (PROTOCOL.md, *Heartbeat*,
 * an extension it shows by answering the session's first one): every HEARTBEAT_MS, and at
 * once whenever something says the path may have changed (networkChangeSuspected: the
 * avatar's media gone quiet, the browser back online or on a new connection type). One that
 * answers is kept (the server ends the reply under way with its socket); without the
 * extension, only the browser's own word condemns the socket. A socket that has not
 * answered within the bound is stale. A stale socket is left without close_webrtc (the room
 * is still ours) and the channel resumes at once on a new one, which rejoins with offer_2;
 * sockets that cannot open while the network is still down are not counted against the 3
 * reconnects for RESUME_WINDOW_MS. Once the new socket has joined,
 * signalingResumed tells what else ran over the old path (the call's recognizer).
 *
 * runSignaling lives as long as the session: it is forked by the session saga
 * and only ends by cancellation (which sends close_webrtc and closes the socket)
 * or by throwing a SessionEnd (channel lost, server quit).
 */
import type { Action } from '@reduxjs/toolkit';
import { call, cancelled, delay, put, race, select, take, takeEvery } from 'typed-redux-saga';
import { catalogue } from '../features/notices/messages.ts';
import {
  networkChangeSuspected,
  roomJoined,
  selectConnectPhase,
  selectSessionStatus,
  selectSignalingState,
  signalingResumed,
  signalingStateChanged,
  type NetworkHint,
} from '../features/session/sessionSlice.ts';
import { encodeClientFrame, parseServerFrame, type ClientRequest, type FrameIdentity } from '../features/signaling/protocol.ts';
import { messageReceived, sendFailed, sendRequested } from '../features/signaling/signalingActions.ts';
import { createLogger } from '../services/logger.ts';
import type { SignalingSocket, SocketEvent } from '../services/socket.ts';
import { socketChannel } from './channels/socketChannel.ts';
import { services } from './context.ts';
import { endWithAlert } from './sessionEnd.ts';
import type { SignalingLink } from './signalingLink.ts';

const log = createLogger('signaling');

export const SIGNALING_RECONNECTS = 3;
export const SIGNALING_RECONNECT_DELAY_MS = 500;
/** A socket stuck connecting (a black-holed network) counts as a failed attempt after this long. */
export const SIGNALING_OPEN_TIMEOUT_MS = 5000;
/** With a server that answers pings, one goes this long after the last, while the room is joined. */
export const HEARTBEAT_MS = 10_000;
/** A heartbeat ping with no frame at all from the server within this long: the socket is stale. */
export const HEARTBEAT_TIMEOUT_MS = 4_000;
/**
 * When the avatar's media goes quiet, the server has this long to answer a ping: on a
 * new network the channel has then rejoined the room by the time the media reconnects
 * (media.ts: the doubt at 300 ms of silence, the drop at 1 s). Well above a mobile RTT.
 */
export const PROBE_TIMEOUT_MS = 1_000;
/**
 * A deadline noticed this much after it passed says the page was starved (a busy phone, a
 * frozen tab), not that the server was silent: its frames may be queued behind the timer.
 * The socket gets another PROBE_TIMEOUT_MS instead.
 */
export const STARVED_MS = 1_000;
/**
 * After a resume, sockets that cannot open (the network still down) are not counted for
 * this long: as long as the media's three reconnects may take (media.ts), so a blackout
 * that outlasts them ends the session with the media's message, as before heartbeats.
 */
export const RESUME_WINDOW_MS = 21_000;
/** PROTOCOL.md: 1000 is the server's normal end of the room; 4003 says the room refuses reconnects. */
const CLOSE_NORMAL = 1000;
const CLOSE_NO_RETRY = 4003;
/** runConnection's code for a socket left because it stopped answering. */
const STALE = 'stale';
/** runConnection's code for a socket left while connecting because the browser changed networks. */
const MOVED = 'moved';

export interface SignalingParams {
  url: string;
  identity: FrameIdentity;
}

/** What the signaling task remembers across reconnects; shared with the start flow, which waits for `joined`. */
export interface SignalingMemory {
  joined: boolean;
  /** The server answers `ping` (it answered one this session). */
  heartbeat?: boolean;
  /** A stale socket was left: the next join is a resume (signalingResumed). */
  resuming?: boolean;
}

function* handleFrame(data: string, memory: SignalingMemory, joinedHere: boolean) {
  const parsed = parseServerFrame(data);
  if (!parsed.ok) {
    log.warn('frame dropped', { reason: parsed.reason, length: data.length });
    return { joined: false };
  }
  if (parsed.notes.length > 0) log.warn('frame cleaned', { notes: parsed.notes });
  let joined = false;
  for (const message of parsed.messages) {
    if (message.msg_type === 'pong') {
      if (!memory.heartbeat) log.info('the server answers heartbeats');
      memory.heartbeat = true;
      continue;
    }
    yield* put(messageReceived(message));
    if (message.msg_type === 'error') {
      log.warn('server refused a frame', { text: message.text.slice(0, 200) });
      // Rejoining after a reconnect, offer_2 refused (PROTOCOL.md: errors name the frame they
      // answer): the room is gone, stopped or reclaimed while the channel was down.
      if (memory.joined && !joinedHere && message.text.startsWith('offer_2')) {
        throw endWithAlert('quit', { id: catalogue.sessionQuit.id });
      }
    }
    if (message.msg_type === 'quit') {
      log.info('server quit the session');
      throw endWithAlert('quit', message.text ? { text: message.text } : { id: catalogue.sessionQuit.id });
    }
    if (message.msg_type !== 'command' || message.command !== 'asr_ready') continue;
    joined = true;
    if (!memory.joined) {
      memory.joined = true;
      yield* put(roomJoined());
    }
  }
  return { joined };
}

const isNetworkHint = (a: Action): a is ReturnType<typeof networkChangeSuspected> => networkChangeSuspected.match(a);
/** The browser's own word that its network changed (not the media's silence). */
const isBrowserHint = (a: Action) => networkChangeSuspected.match(a) && a.payload !== 'media';
/** A delay until `at` (Date.now()), or a wait that never ends. */
const until = (at: number | null) => (at === null ? call(() => new Promise<never>(() => {})) : delay(Math.max(0, at - Date.now())));

/**
 * Whether the joined socket still answers. `deadline`: a ping is out, and a frame must come
 * before it; `pingAt`: when the next heartbeat goes (null: the server does not answer pings).
 */
interface Liveness {
  deadline: number | null;
  pingAt: number | null;
}

/**
 * How one socket ended. `code`: its close code; null when it never opened in time; STALE when
 * it stopped answering; MOVED when the browser said its network changed while it was still
 * connecting (on the old network). `opened`: whether it ever opened.
 */
interface ConnectionEnd {
  joined: boolean;
  opened: boolean;
  code: number | null | typeof STALE | typeof MOVED;
}

/**
 * One socket, from connect to close. Returns whether the room was joined on it
 * (asr_ready): only such a connection resets the reconnect budget, so a server
 * that accepts and immediately drops cannot cause endless reconnects.
 */
function* runConnection(link: SignalingLink, socket: SignalingSocket, params: SignalingParams, memory: SignalingMemory): Generator<unknown, ConnectionEnd> {
  const chan = socketChannel(socket);
  let opened = false;
  let joined = false;
  let quiet = false;
  const alive: Liveness = { deadline: null, pingAt: null };
  const end = (code: ConnectionEnd['code']): ConnectionEnd => {
    quiet = code === STALE || code === MOVED;
    return { joined, opened, code };
  };
  /** Sends a ping; with `within`, a frame must come back by then. */
  const ping = (within: number | null) => {
    if (!socket.send(encodeClientFrame({ type: 'ping' }, params.identity)) || within === null) return;
    const deadline = Date.now() + within;
    alive.deadline = alive.deadline === null ? deadline : Math.min(alive.deadline, deadline);
  };
  /**
   * Something says the path may have changed: true when the socket is to be left at once.
   * A server with heartbeats is asked (a live socket left would cost the visitor the reply
   * under way: the server ends it with the socket). Without them, the browser's own word
   * (back online, a new connection type) is taken; the media going quiet may be the media
   * server alone, and the socket stays.
   */
  const doubt = (hint: NetworkHint) => {
    if (!joined) return false;
    if (memory.heartbeat) {
      log.info('the path may have changed: is the socket still answering?', { hint });
      ping(PROBE_TIMEOUT_MS);
      return false;
    }
    if (hint === 'media') return false;
    log.warn('the network changed under the socket: resuming on a new one', { hint });
    return true;
  };
  /** A frame, a close or an error from the socket. */
  function* onEvent(event: SocketEvent) {
    switch (event.type) {
      case 'message': {
        // Any frame says the socket answers.
        alive.deadline = null;
        const frame: { joined: boolean } = yield* handleFrame(event.data, memory, joined);
        if (frame.joined && !joined) {
          joined = true;
          // Is there a heartbeat? The session's first join asks, expecting nothing: a server
          // without one ignores the ping or refuses it (an error frame, logged), and is not asked again.
          if (memory.heartbeat === undefined) {
            memory.heartbeat = false;
            ping(null);
          }
          if (memory.resuming) {
            memory.resuming = false;
            log.info('the channel resumed on a new socket');
            yield* put(signalingStateChanged('open'));
            yield* put(signalingResumed());
          }
        }
        if (memory.heartbeat && joined && alive.pingAt === null) alive.pingAt = Date.now() + HEARTBEAT_MS;
        return null;
      }
      case 'error':
        log.warn('socket error');
        return null;
      case 'close':
        log.info('socket closed', { code: event.code, reason: event.reason.slice(0, 120) });
        return end(event.code);
      case 'open':
        return null;
    }
  }
  try {
    for (;;) {
      if (!opened) {
        const { event, moved } = yield* race({ event: take(chan), timeout: delay(SIGNALING_OPEN_TIMEOUT_MS), moved: take(isBrowserHint) });
        if (moved) {
          // Still connecting over the network the browser has just left: start again on the new one.
          log.info('the network changed while the socket was connecting: a new one');
          return end(MOVED);
        }
        if (!event) {
          log.warn('socket did not open in time');
          return end(null);
        }
        if (event.type !== 'open') {
          if (event.type === 'close') return end(event.code);
          continue;
        }
        opened = true;
        link.attach(socket, params.identity);
        // offer_2 first: whatever is sent on hearing 'open' (a waiting greeting) follows it.
        link.send({ type: 'offer_2' });
        // A resume says so once the room is joined again (a media attempt waits for that).
        if (!memory.resuming) yield* put(signalingStateChanged('open'));
        continue;
      }
      const next = alive.deadline ?? alive.pingAt;
      const { event, hint, due } = yield* race({ event: take(chan), hint: take(isNetworkHint), due: until(next) });
      if (hint) {
        if (doubt(hint.payload)) return end(STALE);
        continue;
      }
      if (due !== undefined) {
        const now = Date.now();
        if (alive.deadline !== null && now >= alive.deadline) {
          if (now - alive.deadline > STARVED_MS) {
            alive.deadline = now + PROBE_TIMEOUT_MS;
            continue;
          }
          // A frame that came just before the deadline may be queued behind its timer: one turn for it.
          const { late } = yield* race({ late: take(chan), none: delay(0) });
          if (late) {
            const ended: ConnectionEnd | null = yield* onEvent(late);
            if (ended) return ended;
            continue;
          }
          log.warn('the socket stopped answering: resuming on a new one');
          return end(STALE);
        }
        if (alive.pingAt !== null && now >= alive.pingAt) {
          alive.pingAt = now + HEARTBEAT_MS;
          ping(HEARTBEAT_TIMEOUT_MS);
        }
        continue;
      }
      if (!event) continue;
      const ended: ConnectionEnd | null = yield* onEvent(event);
      if (ended) return ended;
    }
  } finally {
    // No effect may be yielded here: this generator runs delegated (yield*), and a
    // yield in its finally would turn the session's cancellation into a normal return.
    chan.close();
    link.detach(socket);
    // Still open means we are leaving (cancelled, or the server quit): say so before closing.
    // A socket left for a new path is closed quietly: the room is still ours, and the new socket rejoins it.
    if (socket.isOpen() && !quiet) socket.send(encodeClientFrame({ type: 'close_webrtc' }, params.identity));
    socket.close();
  }
}

export function* runSignaling(link: SignalingLink, params: SignalingParams, memory: SignalingMemory) {
  const { socket: sockets } = yield* services();
  let failures = 0;
  /** When a stale socket was last left (null: no resume under way). */
  let resumedAt: number | null = null;
  try {
    yield* put(signalingStateChanged('connecting'));
    for (;;) {
      const socket = sockets.connect(params.url);
      const { joined, opened, code } = yield* runConnection(link, socket, params, memory);
      if (code === CLOSE_NORMAL && joined) {
        // We did not close it: the server ended the room (stopped or reclaimed). Its room id
        // is gone, so a reconnect could only be refused.
        log.info('the server closed the session');
        throw endWithAlert('quit', { id: catalogue.sessionQuit.id });
      }
      if (code === CLOSE_NO_RETRY) break;
      if (joined) {
        failures = 0;
        resumedAt = null;
      }
      if ((code === STALE && joined) || code === MOVED) {
        // At once, and not counted: the socket had joined (or never got the chance on the
        // network the browser left), and the server has refused nothing.
        resumedAt ??= Date.now();
        memory.resuming = true;
        yield* put(signalingStateChanged('resuming'));
        continue;
      }
      // While resuming, a socket that could not even open met the network that is still down
      // (no route: it fails at once; a black hole: it times out).
      const stillDown = resumedAt !== null && !opened && Date.now() - resumedAt < RESUME_WINDOW_MS;
      if (!stillDown) {
        if (failures >= SIGNALING_RECONNECTS) break;
        failures += 1;
      }
      yield* put(signalingStateChanged(resumedAt !== null ? 'resuming' : 'reconnecting'));
      log.info('reconnecting', { attempt: failures, counted: !stillDown });
      // The browser saying it has a network again ends the wait.
      yield* race({ waited: delay(SIGNALING_RECONNECT_DELAY_MS), moved: take(isBrowserHint) });
    }
    log.warn('signaling lost: reconnects exhausted');
    yield* put(signalingStateChanged('closed'));
    // While the start is still polling for the stream, the poll is what fails (docs/requirements.md R90).
    const status = yield* select(selectSessionStatus);
    const phase = yield* select(selectConnectPhase);
    const lost = status === 'connecting' && phase === 'stream' ? catalogue.signalingDisconnected : catalogue.signalingLost;
    throw endWithAlert('signalingLost', { id: lost.id });
  } finally {
    if (yield* cancelled()) yield* put(signalingStateChanged('closed'));
  }
}

/** Requests held while the channel reconnects; past this many, a request fails as on a closed channel. */
export const HELD_SENDS_MAX = 32;

/**
 * Sends what other features ask for (sendRequested), adding room_id, app_id and
 * deviceId. While the channel reconnects or resumes (the visitor sees the reconnect
 * hint), requests are held, in order, and sent once it is open again; the session's end
 * (the channel lost) says the rest. With no channel at all it only warns (the
 * specification's "a warning only"): sendFailed carries the request back so the chat can
 * keep the visitor's text.
 */
export function* signalingSendWatcher(link: SignalingLink) {
  const held: ClientRequest[] = [];
  function* fail(request: ClientRequest) {
    log.warn('send while the signaling channel is closed', { type: request.type });
    yield* put(sendFailed({ request, reason: 'closed' }));
  }
  function* flush() {
    const requests = held.splice(0);
    log.info('the channel is back: sending what was held', { count: requests.length });
    for (const request of requests) if (!link.send(request)) yield* fail(request);
  }
  yield* takeEvery(signalingStateChanged.match, function* onChannel(action) {
    if (held.length === 0) return;
    if (action.payload === 'open') yield* flush();
    else if (action.payload === 'closed') for (const request of held.splice(0)) yield* fail(request);
  });
  yield* takeEvery(sendRequested.match, function* send(action) {
    const channel = yield* select(selectSignalingState);
    if (held.length > 0 && channel === 'open') yield* flush();
    if (held.length === 0 && link.send(action.payload)) return;
    if ((channel === 'reconnecting' || channel === 'resuming') && held.length < HELD_SENDS_MAX) {
      log.info('held until the channel is back', { type: action.payload.type });
      held.push(action.payload);
      return;
    }
    yield* fail(action.payload);
  });
}
