/**
 * A deliberately small router over node:http: exact paths, one handler per
 * method, bodies parsed and size-limited before the handler runs, CORS for the
 * service paths to the origins the app is hosted on (the real services are cross-origin
 * to it) and a 403 for any other origin, and the http events of docs/contract.md C14
 * recorded for the calls of docs/contract.md C6.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordEvent } from '../events.ts';
import type { Logger } from '../log.ts';
import { HttpError, parseBody, type BodyKind } from './body.ts';
import { crossSiteRefusal, requestOrigin, type Origin } from './origin.ts';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface RouteContext {
  req: IncomingMessage;
  url: URL;
  origin: Origin;
  body: unknown;
  /** Aborted when the client goes away before the answer is sent. */
  signal: AbortSignal;
}

export interface HttpReply {
  status: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface Route {
  method: Method;
  /** Exact pathname; a trailing slash is ignored. */
  path: string;
  body?: BodyKind;
  /** Record the call in GET /__standin/events (the spec's API calls). */
  record?: boolean;
  /**
   * A service path: answer CORS (preflights, Access-Control-Allow-Origin) for the allowed
   * origins of the router, and refuse (403) a preflight or request from any other origin.
   */
  cors?: boolean;
  /** Errors as plain text (the media server's WHEP) instead of `{code:-1,msg}` JSON. */
  textErrors?: boolean;
  /** Checked before the body is read: an HttpError refuses the request (the control endpoints' origin and type rules). */
  guard?(req: IncomingMessage): HttpError | null;
  /** null means "nothing to send": the client went away. */
  handle(ctx: RouteContext): Promise<HttpReply | null> | HttpReply | null;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export function normalizePath(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

export interface RouterOptions {
  log: Logger;
  fallbackHost: () => string;
  /**
   * Origins of pages hosted elsewhere that may call the service paths (STANDIN_ALLOWED_ORIGINS):
   * they get CORS. The app's own origin needs none; every other origin gets 403, so that a page
   * of another site open in the visitor's browser (same client address as the visitor) can
   * neither read the visitor's room from the streams list nor take its seats over WHEP.
   */
  allowedOrigins?: ReadonlySet<string>;
}

/** CORS headers for an allowed origin; none for the app's own pages and for clients without Origin. */
function corsHeaders(req: IncomingMessage, allowed: ReadonlySet<string>): Record<string, string> {
  const origin = req.headers.origin;
  // The answer depends on Origin: a cache must not hand one origin's answer to another.
  if (origin === undefined || !allowed.has(origin)) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    // The WHEP client reads Location to DELETE its session later.
    'Access-Control-Expose-Headers': 'Location',
    Vary: 'Origin',
  };
}

/** Bodies in events stay small: SDP is summarised, everything else kept. */
function eventBody(body: unknown, kind: BodyKind | 'sdp-out'): unknown {
  if ((kind === 'sdp' || kind === 'sdp-out') && typeof body === 'string') return { sdpBytes: Buffer.byteLength(body) };
  return body;
}

function send(res: ServerResponse, reply: HttpReply, cors: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...cors, ...reply.headers };
  let payload = '';
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['Content-Type'] = 'application/json; charset=utf-8';
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers['Content-Type'] = reply.contentType ?? 'text/plain; charset=utf-8';
  }
  headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

function errorReply(err: unknown, route: Route, log: Logger, path: string): HttpReply {
  if (err instanceof HttpError) {
    if (route.textErrors && err.body === undefined) return { status: err.status, text: err.message };
    return { status: err.status, json: err.body ?? { code: -1, msg: err.message } };
  }
  log.error('handler failed', { path, error: String(err) });
  return route.textErrors ? { status: 500, text: 'internal error' } : { status: 500, json: { code: -1, msg: 'internal error' } };
}

export function createRouter(routes: readonly Route[], opts: RouterOptions): RouteHandler {
  const allowed = opts.allowedOrigins ?? new Set<string>();
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const key = normalizePath(route.path);
    byPath.set(key, [...(byPath.get(key) ?? []), route]);
  }

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin.invalid');
    const candidates = byPath.get(normalizePath(url.pathname));
    if (!candidates) return false;
    const isService = candidates.some((r) => r.cors);
    const cors = isService ? corsHeaders(req, allowed) : {};
    const method = req.method ?? 'GET';
    // The control endpoints' check (server/control.ts), with the app's hosting origins allowed;
    // the refusal's reason is in its body, and the request's line (403) in the log.
    const crossSite = isService ? crossSiteRefusal(req, allowed) : null;

    if (method === 'OPTIONS' && isService) {
      if (crossSite) {
        send(res, { status: 403, json: { code: -1, msg: `${crossSite}: the stand-in's services answer only the app's own pages` } }, cors);
        return true;
      }
      const requested = req.headers['access-control-request-headers'];
      res.writeHead(204, {
        ...cors,
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers':
          typeof requested === 'string' && /^[\w\s,-]{1,500}$/.test(requested) ? requested : 'Content-Type',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return true;
    }

    const route = candidates.find((r) => r.method === method);
    if (!route) {
      const allow = candidates.map((r) => r.method).join(', ');
      send(res, { status: 405, json: { code: -1, msg: `method ${method} not allowed` }, headers: { Allow: allow } }, cors);
      return true;
    }

    const path = url.pathname + url.search;
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });

    let reply: HttpReply | null;
    let recorded = false;
    try {
      const refused = crossSite ? new HttpError(403, `${crossSite}: the stand-in's services answer only the app's own pages`) : route.guard?.(req);
      if (refused) {
        req.resume();
        throw refused;
      }
      const body = await parseBody(req, route.body ?? 'none');
      if (route.record) recordEvent('http', 'in', { method, path, body: eventBody(body, route.body ?? 'none') });
      recorded = true;
      reply = await route.handle({ req, url, origin: requestOrigin(req, opts.fallbackHost()), body, signal: abort.signal });
    } catch (err) {
      reply = errorReply(err, route, opts.log, path);
      // A body that could not be read is recorded here; a handler's error only in the answer below
      // (one request, one `in` event).
      if (route.record && !recorded) recordEvent('http', 'in', { method, path, body: null, error: (err as Error).message });
    }
    if (reply === null || abort.signal.aborted) return true;
    if (route.record) {
      const isSdp = reply.contentType === 'application/sdp';
      recordEvent('http', 'out', { method, path, status: reply.status, body: isSdp ? eventBody(reply.text, 'sdp-out') : (reply.json ?? reply.text ?? null) });
    }
    send(res, reply, cors);
    return true;
  };
}

/** One log line per request: method, path, status and duration. */
export function logRequest(req: IncomingMessage, res: ServerResponse, log: Logger): void {
  const started = performance.now();
  // Captured now: static serving rewrites req.url.
  const what = `${req.method ?? '?'} ${req.url ?? '?'}`;
  res.on('close', () => {
    const ms = Math.round(performance.now() - started);
    const status = res.writableFinished ? res.statusCode : 0;
    const line = `${what} ${status} ${ms}ms`;
    if (status >= 500 || status === 0) log.warn(line);
    else log.info(line);
  });
}
