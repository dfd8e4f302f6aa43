/**
 * The one way frames reach the signaling socket. The session's signaling saga
 * attaches the socket while it is open; the send watcher (which outlives
 * sessions) writes through it. One link is created per rootSaga run, so tests
 * and stores never share it.
 */
import { encodeClientFrame, type ClientRequest, type FrameIdentity, type SessionFrame } from '../features/signaling/protocol.ts';
import type { SignalingSocket } from '../services/socket.ts';

export interface SignalingLink {
  attach(socket: SignalingSocket, identity: FrameIdentity): void;
  /** Detaches only if `socket` is the attached one, so a late cleanup cannot detach its successor. */
  detach(socket: SignalingSocket): void;
  /** False when no open socket is attached; nothing is queued. */
  send(frame: ClientRequest | SessionFrame): boolean;
}

export function createSignalingLink(): SignalingLink {
  let current: { socket: SignalingSocket; identity: FrameIdentity } | null = null;
  return {
    attach(socket, identity) {
      current = { socket, identity };
    },
    detach(socket) {
      if (current?.socket === socket) current = null;
    },
    send(frame) {
      if (!current || !current.socket.isOpen()) return false;
      return current.socket.send(encodeClientFrame(frame, current.identity));
    },
  };
}
