/**
 * The stand-in imitates services that live on other hosts, so every URL it hands
 * out (websockLink, srsLink, asset URLs) is built from the Host the client used.
 * The Host header is client input: anything that is not a plain host[:port] is
 * ignored in favour of the address the server listens on.
 */
import type { IncomingMessage } from 'node:http';

export interface Origin {
  /** e.g. http://127.0.0.1:8080 */
  http: string;
  /** e.g. ws://127.0.0.1:8080 */
  ws: string;
}

const HOST_RE = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function isValidHost(host: string): boolean {
  return HOST_RE.test(host);
}

export function requestOrigin(req: IncomingMessage, fallbackHost: string): Origin {
  const header = req.headers.host ?? '';
  const host = isValidHost(header) ? header : fallbackHost;
  // Over TLS (`--lan`) or behind a TLS-terminating proxy the page is https, so the links must be too.
  const secure = 'encrypted' in req.socket || req.headers['x-forwarded-proto'] === 'https';
  return { http: `${secure ? 'https' : 'http'}://${host}`, ws: `${secure ? 'wss' : 'ws'}://${host}` };
}
