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

/**
 * The Origin header when it names another origin than the one the request was
 * addressed to (scheme and Host), else null. A request without Origin (curl, a
 * test runner, a native client) names no other origin. "null" (a sandboxed
 * frame, a file: page) is foreign.
 */
export function foreignOrigin(req: IncomingMessage): string | null {
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  const host = req.headers.host ?? '';
  if (!isValidHost(host)) return origin;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return origin;
  }
  const own = new Set([`http://${host}`, `https://${host}`].map((o) => new URL(o).origin));
  return own.has(url.origin) ? null : origin;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Why a browser page of another site may not use this request, or null. Beyond
 * the Origin header, Fetch Metadata catches what carries no Origin (a cross-site
 * GET sends none): `Sec-Fetch-Site: cross-site` or `same-site` is another site's
 * page, `same-origin` and `none` (typed in the address bar) are ours.
 *
 * `allowed`: origins of pages hosted elsewhere that are ours all the same (the app behind
 * nginx, STANDIN_ALLOWED_ORIGINS); their requests are same-site or cross-site and carry
 * their Origin. One check for every door the stand-in has: the service paths, the
 * signaling and speech upgrades, and (with nothing allowed) the control endpoints.
 */
export function crossSiteRefusal(req: IncomingMessage, allowed: ReadonlySet<string> = NONE): string | null {
  const foreign = foreignOrigin(req);
  if (foreign !== null) return allowed.has(foreign) ? null : `requests from another origin (${foreign.slice(0, 100)}) are refused`;
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return `requests from another site (Sec-Fetch-Site: ${site}) are refused`;
  return null;
}
