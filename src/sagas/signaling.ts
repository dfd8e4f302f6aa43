/**
 * The session's signaling channel (PROTOCOL.md): connect, join the room with
 * offer_2 (again after every reconnect), report the first asr_ready (the start flow
 * greets once the avatar can be heard),
 * validate and publish every frame, reconnect up to 3 times 500 ms apart.
 *
 * runSignaling lives as long as the session: it is forked by the session saga
 * and only ends by cancellation (which sends close_webrtc and closes the socket)
 * or by throwing a SessionEnd (channel lost, server quit).
 */
import { cancelled, delay, put, race, select, take, takeEvery } from 'typed-redux-saga';
import { catalogue } from '../features/notices/messages.ts';
import {
  roomJoined,
  selectConnectPhase,
  selectSessionStatus,
  signalingStateChanged,
} from '../features/session/sessionSlice.ts';
import { encodeClientFrame, parseServerFrame, type FrameIdentity } from '../features/signaling/protocol.ts';
import { messageReceived, sendFailed, sendRequested } from '../features/signaling/signalingActions.ts';
import { createLogger } from '../services/logger.ts';
import type { SignalingSocket } from '../services/socket.ts';
import { socketChannel } from './channels/socketChannel.ts';
import { services } from './context.ts';
import { endWithAlert } from './sessionEnd.ts';
import type { SignalingLink } from './signalingLink.ts';

const log = createLogger('signaling');

export const SIGNALING_RECONNECTS = 3;
export const SIGNALING_RECONNECT_DELAY_MS = 500;
/** A socket stuck connecting (a black-holed network) counts as a failed attempt after this long. */
export const SIGNALING_OPEN_TIMEOUT_MS = 5000;
/** PROTOCOL.md: 1000 is the server's normal end of the room; 4003 says the room refuses reconnects. */
const CLOSE_NORMAL = 1000;
const CLOSE_NO_RETRY = 4003;

export interface SignalingParams {
  url: string;
  identity: FrameIdentity;
}

/** What the signaling task remembers across reconnects; shared with the start flow, which waits for `joined`. */
export interface SignalingMemory {
  joined: boolean;
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

/**
 * One socket, from connect to close. Returns whether the room was joined on it
 * (asr_ready): only such a connection resets the reconnect budget, so a server
 * that accepts and immediately drops cannot cause endless reconnects. Also the
 * close code (null when the socket never opened in time).
 */
function* runConnection(link: SignalingLink, socket: SignalingSocket, params: SignalingParams, memory: SignalingMemory) {
  const chan = socketChannel(socket);
  let opened = false;
  let joined = false;
  try {
    for (;;) {
      const event = opened
        ? yield* take(chan)
        : (yield* race({ event: take(chan), timeout: delay(SIGNALING_OPEN_TIMEOUT_MS) })).event;
      if (!event) {
        log.warn('socket did not open in time');
        return { joined, code: null };
      }
      switch (event.type) {
        case 'open':
          opened = true;
          link.attach(socket, params.identity);
          // offer_2 first: whatever is sent on hearing 'open' (a waiting greeting) follows it.
          link.send({ type: 'offer_2' });
          yield* put(signalingStateChanged('open'));
          break;
        case 'message': {
          const frame: { joined: boolean } = yield* handleFrame(event.data, memory, joined);
          joined ||= frame.joined;
          break;
        }
        case 'error':
          log.warn('socket error');
          break;
        case 'close':
          log.info('socket closed', { code: event.code, reason: event.reason.slice(0, 120) });
          return { joined, code: event.code };
      }
    }
  } finally {
    // No effect may be yielded here: this generator runs delegated (yield*), and a
    // yield in its finally would turn the session's cancellation into a normal return.
    chan.close();
    link.detach(socket);
    // Still open means we are leaving (cancelled, or the server quit): say so before closing.
    if (socket.isOpen()) socket.send(encodeClientFrame({ type: 'close_webrtc' }, params.identity));
    socket.close();
  }
}

export function* runSignaling(link: SignalingLink, params: SignalingParams, memory: SignalingMemory) {
  const { socket: sockets } = yield* services();
  let failures = 0;
  try {
    yield* put(signalingStateChanged('connecting'));
    for (;;) {
      const socket = sockets.connect(params.url);
      const { joined, code } = yield* runConnection(link, socket, params, memory);
      if (code === CLOSE_NORMAL && joined) {
        // We did not close it: the server ended the room (stopped or reclaimed). Its room id
        // is gone, so a reconnect could only be refused.
        log.info('the server closed the session');
        throw endWithAlert('quit', { id: catalogue.sessionQuit.id });
      }
      if (code === CLOSE_NO_RETRY) break;
      failures = joined ? 0 : failures;
      if (failures >= SIGNALING_RECONNECTS) break;
      failures += 1;
      yield* put(signalingStateChanged('reconnecting'));
      log.info('reconnecting', { attempt: failures });
      yield* delay(SIGNALING_RECONNECT_DELAY_MS);
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

/**
 * Sends what other features ask for (sendRequested), adding room_id, app_id and
 * deviceId. With no open channel it only warns: nothing is queued, and
 * sendFailed carries the request back so the chat can keep the visitor's text.
 */
export function* signalingSendWatcher(link: SignalingLink) {
  yield* takeEvery(sendRequested.match, function* send(action) {
    if (link.send(action.payload)) return;
    log.warn('send while the signaling channel is closed', { type: action.payload.type });
    yield* put(sendFailed({ request: action.payload, reason: 'closed' }));
  });
}
