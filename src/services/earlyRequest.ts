/**
 * One request made before the app has loaded, handed to the app's HTTP client when it
 * asks for the same thing. src/early.ts starts `POST /ue/userinfo` as the page's first
 * script, while the app's JavaScript still downloads; the boot saga's first attempt then
 * takes that answer instead of asking again, so the service sees one request, as before,
 * and its retries and errors follow the HTTP client's rules unchanged.
 */
import type { FetchLike } from './http.ts';

interface Early {
  url: string;
  init: RequestInit;
  response: Promise<Response>;
}

let pending: Early | null = null;

/** The same request: URL, method and body (form bodies are strings). */
function sameRequest(early: Early, url: string, init: RequestInit): boolean {
  return early.url === url && (early.init.method ?? 'GET') === (init.method ?? 'GET') && early.init.body === init.body;
}

/** Starts the request now; the answer waits for `earlyFetch` to take it. A second call replaces the first. */
export function startEarlyRequest(url: string, init: RequestInit, doFetch: FetchLike = (u, i) => globalThis.fetch(u, i)): Promise<Response> {
  const response = doFetch(url, init);
  // Nobody may take it (a saga that never asks): its failure is the app's to report, not an unhandled rejection.
  response.catch(() => {});
  pending = { url, init, response };
  return response;
}

/** Rejects with an AbortError when `signal` aborts first, as fetch itself would. */
function abortable(response: Promise<Response>, signal: AbortSignal | null | undefined): Promise<Response> {
  if (!signal) return response;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new DOMException('The operation was aborted.', 'AbortError'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    response.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A fetch that answers the early request's twin, once, with the early answer; anything else goes to `fallback`. */
export function earlyFetch(fallback: FetchLike = (u, i) => globalThis.fetch(u, i)): FetchLike {
  return (url, init) => {
    const early = pending;
    if (early && sameRequest(early, url, init)) {
      pending = null;
      return abortable(early.response, init.signal);
    }
    return fallback(url, init);
  };
}

/** Tests: forget a request left by another test. */
export function clearEarlyRequest(): void {
  pending = null;
}
