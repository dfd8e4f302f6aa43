import { buffers, eventChannel, type EventChannel } from 'redux-saga';
import type { SignalingSocket, SocketEvent } from '../../services/socket.ts';

/**
 * The events of one signaling socket. The buffer is expanding because every
 * frame matters (a dropped tts part would lose reply text); the socket
 * delivers a bounded number of frames between two takes in practice.
 */
export function socketChannel(socket: SignalingSocket): EventChannel<SocketEvent> {
  return eventChannel<SocketEvent>((emit) => socket.subscribe(emit), buffers.expanding(64));
}
