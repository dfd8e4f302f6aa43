/**
 * The signaling WebSocket endpoint (/ws/signaling). The HTTP app routes
 * upgrades here; each connection gets a SignalingSession.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { hasFault } from '../faults.ts';
import type { Logger } from '../log.ts';
import { requestOrigin } from '../http/origin.ts';
import type { ReplyPart } from '../replies/reply.ts';
import type { RoomRegistry } from '../rooms.ts';
import { FRAME_RATE, frameBudget, type FrameRate } from './rate.ts';
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
  limits?: Partial<SignalingLimits>;
  dialect?: SessionDeps['dialect'];
  /** Overrides the frames and bytes one socket may send (signaling/rate.ts). */
  rate?: Partial<FrameRate>;
}

/**
 * Connections cost a file descriptor and memory each, and every one of them can
 * be held open for ever by answering pings. A phone needs one at a time (two
 * while a reconnect overlaps a dying socket); a household or an office behind
 * one address needs a few more. Beyond the per-address cap an upgrade is
 * answered 429, beyond the total 503, so one client's sockets cannot take the
 * whole stand-in.
 */
export interface SignalingLimits {
  perAddress: number;
  total: number;
  /** A connection that has not joined a room (offer_2) this long after opening is closed (1008). */
  joinTimeoutMs: number;
}

export const SIGNALING_LIMITS: SignalingLimits = { perAddress: 16, total: 256, joinTimeoutMs: 10_000 };
export const CLOSE_POLICY = 1008;
export const CLOSE_INTERNAL_ERROR = 1011;

export interface Signaling {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends a reply to the newest session of every live room; returns their room ids. */
  sayToLiveRooms(parts: ReplyPart[]): string[];
  close(): Promise<void>;
}

/** The client's address; IPv4-mapped IPv6 (::ffff:1.2.3.4) counts as the IPv4 address. */
export function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * A warning that a flood would repeat thousands of times: the first is logged,
 * then at most one per `everyMs` with the number held back meanwhile.
 */
function throttledWarn(log: Logger, everyMs = 5_000): (message: string, fields: Record<string, unknown>) => void {
  let last = -Infinity;
  let held = 0;
  return (message, fields) => {
    const now = performance.now();
    if (now - last < everyMs) {
      held++;
      return;
    }
    log.warn(message, held > 0 ? { ...fields, alsoRefusedSinceLastLine: held } : fields);
    last = now;
    held = 0;
  };
}

function frameBytes(data: RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

export function createSignaling(opts: SignalingOptions): Signaling {
  const { rooms, log } = opts;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  const sessions = new Map<WebSocket, SignalingSession>();
  const alive = new WeakSet<WebSocket>();
  const limits = { ...SIGNALING_LIMITS, ...opts.limits };
  /** Open connections, and upgrades under way, by client address. */
  const perAddress = new Map<string, number>();
  let total = 0;
  const warnRefused = throttledWarn(log);
  const warnUnjoined = throttledWarn(log);
  const warnFlood = throttledWarn(log);
  const release = (address: string): void => {
    total--;
    const left = (perAddress.get(address) ?? 1) - 1;
    if (left > 0) perAddress.set(address, left);
    else perAddress.delete(address);
  };

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

  function accept(ws: WebSocket, req: IncomingMessage, address: string): void {
    const joinTimer = setTimeout(() => {
      if (session.room || ws.readyState !== ws.OPEN) return;
      warnUnjoined('signaling connection did not join a room in time; closing it', { address, ms: limits.joinTimeoutMs });
      ws.close(CLOSE_POLICY, 'send offer_2 first');
    }, limits.joinTimeoutMs);
    joinTimer.unref();
    const session = new SignalingSession(ws, {
      rooms,
      log,
      origin: requestOrigin(req, opts.fallbackHost()),
      address,
      ...(opts.play ? { play: opts.play } : {}),
      ...(opts.dialect ? { dialect: opts.dialect } : {}),
    });
    sessions.set(ws, session);
    alive.add(ws);
    const withinRate = frameBudget({ ...FRAME_RATE, ...opts.rate });
    // A frame or a pong is the visitor's sign of life for its room (rooms.ts, the silence rule).
    ws.on('pong', () => {
      alive.add(ws);
      session.room?.touch();
    });
    ws.on('message', (data, isBinary) => {
      if (ws.readyState !== ws.OPEN) return;
      if (!withinRate(frameBytes(data))) {
        warnFlood('signaling connection sent too many frames; closing it', { address, roomId: session.room?.id });
        ws.close(CLOSE_POLICY, 'too many frames');
        return;
      }
      session.room?.touch();
      // A frame that makes a handler throw costs its own socket (1011), never the process:
      // thrown here, it would leave through ws's socket reader as an uncaught exception.
      try {
        session.onMessage(data, isBinary);
      } catch (err) {
        log.error('signaling frame handling failed; closing that socket', { address, roomId: session.room?.id, error: err instanceof Error ? err.stack?.split('\n').slice(0, 3).join(' | ') : String(err) });
        ws.close(CLOSE_INTERNAL_ERROR, 'internal error');
      }
    });
    ws.on('error', (err) => log.warn('signaling connection error', { roomId: session.room?.id, error: err.message }));
    ws.on('close', (code) => {
      clearTimeout(joinTimer);
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
      const address = clientAddress(req);
      if (total >= limits.total) {
        warnRefused('signaling upgrade refused: too many connections', { total });
        refuse(socket, 503, 'Service Unavailable');
        return;
      }
      if ((perAddress.get(address) ?? 0) >= limits.perAddress) {
        warnRefused('signaling upgrade refused: too many connections from one address', { address, limit: limits.perAddress });
        refuse(socket, 429, 'Too Many Requests');
        return;
      }
      total++;
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      // Counted from the upgrade on, released exactly once: when the socket closes, whether or
      // not the handshake completed.
      let released = false;
      const releaseOnce = (): void => {
        if (released) return;
        released = true;
        release(address);
      };
      socket.once('close', releaseOnce);
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.once('close', releaseOnce);
        accept(ws, req, address);
      });
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
