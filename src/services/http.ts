/**
 * fetch with a default 10 s timeout (docs/requirements.md R85), the caller's AbortSignal,
 * JSON / form / raw bodies, and one error type whose `kind` says what went wrong.
 * Response bodies come back as `unknown`: callers check the shape they need.
 */
import { createLogger } from './logger.ts';

const log = createLogger('http');

export const HTTP_TIMEOUT_MS = 10_000;

export type HttpErrorKind = 'timeout' | 'aborted' | 'network' | 'status' | 'badJson' | 'badShape';

export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly kind: HttpErrorKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof HttpError && error.kind === 'aborted') ||
    (error instanceof DOMException && error.name === 'AbortError')
  );
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the 10 s default for this request. */
  timeoutMs?: number;
  /** Lets the request outlive the page (fetch keepalive), for a hang-up sent as the page goes. */
  keepalive?: boolean;
}

export interface TextResponse {
  status: number;
  text: string;
  /** The Location header, when the answer has one (a WHEP session's resource URL). */
  location?: string;
}

export interface HttpClient {
  getJson(url: string, options?: RequestOptions): Promise<unknown>;
  postJson(url: string, body: unknown, options?: RequestOptions): Promise<unknown>;
  postForm(url: string, fields: Record<string, string>, options?: RequestOptions): Promise<unknown>;
  /** Sends a raw body (an SDP offer) and returns the raw answer; non-2xx statuses throw. */
  postText(url: string, body: string, contentType: string, options?: RequestOptions): Promise<TextResponse>;
  /** DELETE of a resource (a WHEP session); non-2xx statuses throw. */
  delete(url: string, options?: RequestOptions): Promise<TextResponse>;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

interface Deadline {
  signal: AbortSignal;
  timedOut(): boolean;
  dispose(): void;
}

/**
 * A signal that aborts on the caller's abort or after `ms`. AbortSignal.any and
 * AbortSignal.timeout are used where the browser has them; iOS Safari before 17.4
 * lacks `any`, so the same is done by hand there.
 */
function deadline(ms: number, caller: AbortSignal | undefined): Deadline {
  if (typeof AbortSignal.timeout === 'function' && typeof AbortSignal.any === 'function') {
    const timeout = AbortSignal.timeout(ms);
    const signal = caller ? AbortSignal.any([caller, timeout]) : timeout;
    return { signal, timedOut: () => timeout.aborted && !caller?.aborted, dispose: () => {} };
  }
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, ms);
  const onAbort = () => controller.abort();
  if (caller?.aborted) controller.abort();
  caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired && !caller?.aborted,
    dispose: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}

/** A form-encoded POST, as postForm sends it (src/early.ts makes the same one before the app loads). */
export function formRequest(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
  };
}

export function createHttp(options: { fetch?: FetchLike; timeoutMs?: number } = {}): HttpClient {
  const doFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const defaultTimeout = options.timeoutMs ?? HTTP_TIMEOUT_MS;

  async function send(url: string, init: RequestInit, opts: RequestOptions = {}): Promise<TextResponse> {
    if (opts.signal?.aborted) throw new HttpError('aborted', `${url}: aborted`);
    const limit = deadline(opts.timeoutMs ?? defaultTimeout, opts.signal);
    const started = performance.now();
    const method = init.method ?? 'GET';
    let outcome = 'network';
    let status: number | null = null;
    try {
      const response = await doFetch(url, { ...init, signal: limit.signal, ...(opts.keepalive ? { keepalive: true } : {}) });
      status = response.status;
      const text = await response.text();
      outcome = response.ok ? 'ok' : 'status';
      if (!response.ok) {
        log.warn('HTTP error status', { url, status: response.status });
        throw new HttpError('status', `${url}: HTTP ${response.status}`, response.status);
      }
      const location = response.headers.get('Location');
      return location === null ? { status: response.status, text } : { status: response.status, text, location };
    } catch (error) {
      if (error instanceof HttpError) throw error;
      if (limit.timedOut()) {
        outcome = 'timeout';
        log.warn('request timed out', { url });
        throw new HttpError('timeout', `${url}: timed out`);
      }
      if (opts.signal?.aborted) {
        outcome = 'aborted';
        throw new HttpError('aborted', `${url}: aborted`);
      }
      log.warn('network error', { url, error: String(error) });
      throw new HttpError('network', `${url}: ${String(error)}`);
    } finally {
      limit.dispose();
      log.event('request', { method, url, status, outcome, ms: Math.round(performance.now() - started) });
    }
  }

  async function json(url: string, init: RequestInit, opts?: RequestOptions): Promise<unknown> {
    const { text } = await send(url, { ...init, headers: { Accept: 'application/json', ...init.headers } }, opts);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      log.warn('response is not JSON', { url, length: text.length });
      throw new HttpError('badJson', `${url}: response is not JSON`);
    }
  }

  return {
    getJson: (url, opts) => json(url, { method: 'GET' }, opts),
    postJson: (url, body, opts) =>
      json(url, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }, opts),
    postForm: (url, fields, opts) => json(url, formRequest(fields), opts),
    postText: (url, body, contentType, opts) =>
      send(url, { method: 'POST', body, headers: { 'Content-Type': contentType } }, opts),
    delete: (url, opts) => send(url, { method: 'DELETE' }, opts),
  };
}
