/**
 * Bounds on the TCP connections the stand-in's HTTP(S) server holds, so that a client that
 * opens connections and then sends nothing, or a header a byte at a time (slowloris), cannot
 * take the server from everybody else:
 *
 * - at most `perAddress` open connections from one client address, `total` in all: beyond
 *   either, a new connection is closed at once (before TLS, before any byte is read);
 * - the request's headers must arrive within `headersMs` and the whole request within
 *   `requestMs` of its start (Node then closes it; the app answers 408), a TLS handshake
 *   must finish within `handshakeMs`, and an idle keep-alive connection is closed after
 *   `keepAliveMs`.
 *
 * A WebSocket counts as one of its address's connections for as long as it is open (the
 * signaling and speech services have their own, smaller caps); once upgraded, the HTTP
 * timeouts no longer apply to it.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.ts';

export interface ConnectionLimits {
  perAddress: number;
  total: number;
  headersMs: number;
  requestMs: number;
  handshakeMs: number;
  keepAliveMs: number;
}

/**
 * A phone needs at most six HTTP connections to one origin (the browsers' limit) plus a
 * WebSocket or two each for signaling and speech; a test harness or a load benchmark on the
 * machine itself opens many more from 127.0.0.1 (16 sessions at once: about 60). The header
 * timeout counts from the connection's first request, so it also takes in a stand-in busy for
 * a few seconds (a room's first frames are drawn at once): 20 s, a third of Node's 60 s.
 */
export const CONNECTION_LIMITS: ConnectionLimits = {
  perAddress: 128,
  total: 1024,
  headersMs: 20_000,
  requestMs: 60_000,
  handshakeMs: 20_000,
  keepAliveMs: 5_000,
};

/** How often Node looks for connections past the header and request timeouts. */
export const TIMEOUT_CHECK_MS = 1_000;

/** The client's address; IPv4-mapped IPv6 (::ffff:1.2.3.4) counts as the IPv4 address. */
export function clientAddress(req: Pick<IncomingMessage, 'socket'>): string {
  return normalizeAddress(req.socket.remoteAddress);
}

export function normalizeAddress(address: string | undefined): string {
  const a = address ?? 'unknown';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

/** The server options that carry the timeouts (node:http and node:https take the same ones). */
export function timeoutOptions(limits: ConnectionLimits = CONNECTION_LIMITS) {
  return {
    headersTimeout: limits.headersMs,
    requestTimeout: limits.requestMs,
    keepAliveTimeout: limits.keepAliveMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    handshakeTimeout: limits.handshakeMs,
  };
}

/** Counts the server's connections by address and closes those beyond the limits. */
export function limitConnections(server: Server, limits: ConnectionLimits, log: Logger): { count(address?: string): number } {
  const byAddress = new Map<string, number>();
  let total = 0;
  let lastWarning = -Infinity;
  let held = 0;
  const warn = (fields: Record<string, unknown>): void => {
    // A flood repeats this thousands of times: one line, then at most one per 5 s.
    const now = performance.now();
    if (now - lastWarning < 5_000) {
      held++;
      return;
    }
    log.warn('connection refused: too many connections', held > 0 ? { ...fields, alsoRefusedSinceLastLine: held } : fields);
    lastWarning = now;
    held = 0;
  };
  // For https this is the raw TCP connection, before the TLS handshake.
  server.on('connection', (socket: Socket) => {
    const address = normalizeAddress(socket.remoteAddress);
    const mine = byAddress.get(address) ?? 0;
    if (total >= limits.total || mine >= limits.perAddress) {
      warn({ address, fromAddress: mine, total, perAddressLimit: limits.perAddress, totalLimit: limits.total });
      socket.destroy();
      return;
    }
    total++;
    byAddress.set(address, mine + 1);
    socket.once('close', () => {
      total--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
  });
  return { count: (address) => (address === undefined ? total : (byAddress.get(address) ?? 0)) };
}
