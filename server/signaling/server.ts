/**
 * The signaling WebSocket endpoint (/ws/signaling). The HTTP app routes
 * upgrades here; each connection gets a SignalingSession.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { hasFault } from '../faults.ts';
import type { Logger } from '../log.ts';
import { requestOrigin } from '../http/origin.ts';
import type { ReplyPart } from '../replies/reply.ts';
import type { RoomRegistry } from '../rooms.ts';
import { SignalingSession, type SessionDeps } from './session.ts';

export const SIGNALING_PATH = '/ws/signaling';
/** Text fields may be up to 100,000 characters (PROTOCOL.md); leave room for multi-byte text. */
export const MAX_FRAME_BYTES = 512 * 1024;

export interface SignalingOptions {
  rooms: RoomRegistry;
  log: Logger;
  fallbackHost: () => string;
  /** How often dead connections are looked for (a vanished phone sends no FIN). */
  pingIntervalMs?: number;
  play?: SessionDeps['play'];
}

export interface Signaling {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends a reply to the newest session of every live room; returns their room ids. */
  sayToLiveRooms(parts: ReplyPart[]): string[];
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

export function createSignaling(opts: SignalingOptions): Signaling {
  const { rooms, log } = opts;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  const sessions = new Map<WebSocket, SignalingSession>();
  const alive = new WeakSet<WebSocket>();

  const pinger = setInterval(() => {
    for (const ws of sessions.keys()) {
      if (!alive.has(ws)) {
        log.warn('signaling connection stopped answering pings; dropping it');
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, opts.pingIntervalMs ?? 15_000);
  pinger.unref();

  function accept(ws: WebSocket, req: IncomingMessage): void {
    const session = new SignalingSession(ws, {
      rooms,
      log,
      origin: requestOrigin(req, opts.fallbackHost()),
      ...(opts.play ? { play: opts.play } : {}),
    });
    sessions.set(ws, session);
    alive.add(ws);
    ws.on('pong', () => alive.add(ws));
    ws.on('message', (data, isBinary) => session.onMessage(data, isBinary));
    ws.on('error', (err) => log.warn('signaling connection error', { roomId: session.room?.id, error: err.message }));
    ws.on('close', (code) => {
      sessions.delete(ws);
      log.info('signaling connection closed', { roomId: session.room?.id, code });
      session.onClose();
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      socket.on('error', (err) => log.warn('signaling upgrade socket error', { error: err.message }));
      // The upgrade carries no room id; while a room is down by fault, every reconnect is refused.
      if (hasFault('signaling-down') && rooms.list().some((room) => room.signalingDown)) {
        log.warn('signaling upgrade refused (fault signaling-down)');
        refuse(socket, 503, 'Service Unavailable');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => accept(ws, req));
    },

    sayToLiveRooms(parts) {
      const newest = new Map<string, SignalingSession>();
      for (const session of sessions.values()) {
        const room = session.room;
        if (!room?.isLive()) continue;
        const other = newest.get(room.id);
        if (!other || other.boundAt <= session.boundAt) newest.set(room.id, session);
      }
      for (const session of newest.values()) session.say(parts);
      return [...newest.keys()];
    },

    async close() {
      clearInterval(pinger);
      for (const ws of sessions.keys()) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
