/**
 * A deliberately small router over node:http: exact paths, one handler per
 * method, bodies parsed and size-limited before the handler runs, CORS for the
 * service paths (the real services are cross-origin to the app), and the
 * http events of docs/contract.md C14 recorded for the calls of docs/contract.md C6.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordEvent } from '../events.ts';
import type { Logger } from '../log.ts';
import { HttpError, parseBody, type BodyKind } from './body.ts';
import { requestOrigin, type Origin } from './origin.ts';

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
  /** Answer CORS preflights and add Access-Control-Allow-Origin. */
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

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  // The WHEP client reads Location to DELETE its session later.
  'Access-Control-Expose-Headers': 'Location',
};

/** Bodies in events stay small: SDP is summarised, everything else kept. */
function eventBody(body: unknown, kind: BodyKind | 'sdp-out'): unknown {
  if ((kind === 'sdp' || kind === 'sdp-out') && typeof body === 'string') return { sdpBytes: Buffer.byteLength(body) };
  return body;
}

function send(res: ServerResponse, reply: HttpReply, cors: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...(cors ? CORS_HEADERS : {}), ...reply.headers };
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

export function createRouter(routes: readonly Route[], opts: { log: Logger; fallbackHost: () => string }): RouteHandler {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const key = normalizePath(route.path);
    byPath.set(key, [...(byPath.get(key) ?? []), route]);
  }

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin.invalid');
    const candidates = byPath.get(normalizePath(url.pathname));
    if (!candidates) return false;
    const cors = candidates.some((r) => r.cors);
    const method = req.method ?? 'GET';

    if (method === 'OPTIONS' && cors) {
      const requested = req.headers['access-control-request-headers'];
      res.writeHead(204, {
        ...CORS_HEADERS,
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
      const refused = route.guard?.(req);
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
