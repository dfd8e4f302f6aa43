import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHttp, HttpError, type FetchLike } from './http.ts';

const ok = (body: string, status = 200) => Promise.resolve(new Response(body, { status }));

/** A fetch that never answers but honours its signal, like a stalled server. */
const stalled: FetchLike = (_url, init) =>
  new Promise((_resolve, reject) => {
    init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
  });

async function failure(promise: Promise<unknown>): Promise<HttpError> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('http', () => {
  it('posts JSON and parses the JSON answer', async () => {
    const fetch = vi.fn<FetchLike>(() => ok('{"code":0}'));
    const body = await createHttp({ fetch }).postJson('/get/route', { uid: 'demo' });
    expect(body).toEqual({ code: 0 });
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe('/get/route');
    expect(init).toMatchObject({ method: 'POST', body: '{"uid":"demo"}' });
    expect(init?.headers).toMatchObject({ 'Content-Type': 'application/json' });
  });

  it('posts a form-encoded body', async () => {
    const fetch = vi.fn<FetchLike>(() => ok('{}'));
    await createHttp({ fetch }).postForm('/ue/userinfo', { uid: 'a b', version: '1.0.0' });
    expect(fetch.mock.calls[0]?.[1]).toMatchObject({ body: 'uid=a+b&version=1.0.0' });
    expect(fetch.mock.calls[0]?.[1].headers).toMatchObject({ 'Content-Type': 'application/x-www-form-urlencoded' });
  });

  it('returns raw text and status for an SDP exchange', async () => {
    const fetch = vi.fn<FetchLike>(() => ok('v=0\r\n', 201));
    const answer = await createHttp({ fetch }).postText('/rtc/v1/whep/', 'v=0', 'application/sdp');
    expect(answer).toEqual({ status: 201, text: 'v=0\r\n' });
  });

  it('returns the Location of an answer, and sends DELETE (with keepalive when asked) bounded by the timeout', async () => {
    const fetch = vi.fn<FetchLike>((url) =>
      url.startsWith('/rtc/v1/whep/?app')
        ? Promise.resolve(new Response('v=0\r\n', { status: 201, headers: { Location: '/rtc/v1/whep/?session=s' } }))
        : ok('closed'),
    );
    const http = createHttp({ fetch });
    expect(await http.postText('/rtc/v1/whep/?app=live', 'v=0', 'application/sdp')).toEqual({ status: 201, text: 'v=0\r\n', location: '/rtc/v1/whep/?session=s' });
    expect(await http.delete('/rtc/v1/whep/?session=s', { keepalive: true })).toEqual({ status: 200, text: 'closed' });
    expect(fetch.mock.calls[1]?.[1]).toMatchObject({ method: 'DELETE', keepalive: true, signal: expect.any(AbortSignal) });
    const stalled: FetchLike = (_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    await expect(createHttp({ fetch: stalled, timeoutMs: 20 }).delete('/x')).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('fails with kind "status" on a non-2xx answer', async () => {
    const error = await failure(createHttp({ fetch: () => ok('oops', 500) }).getJson('/x'));
    expect(error).toMatchObject({ kind: 'status', status: 500 });
  });

  it('fails with kind "badJson" on an answer that is not JSON', async () => {
    const error = await failure(createHttp({ fetch: () => ok('<html>') }).getJson('/x'));
    expect(error.kind).toBe('badJson');
  });

  it('fails with kind "network" when fetch rejects', async () => {
    const error = await failure(createHttp({ fetch: () => Promise.reject(new TypeError('Failed to fetch')) }).getJson('/x'));
    expect(error.kind).toBe('network');
  });

  it('times out after the configured time', async () => {
    const error = await failure(createHttp({ fetch: stalled, timeoutMs: 20 }).getJson('/x'));
    expect(error.kind).toBe('timeout');
  });

  it('lets one request override the default timeout', async () => {
    const error = await failure(createHttp({ fetch: stalled, timeoutMs: 60_000 }).getJson('/x', { timeoutMs: 20 }));
    expect(error.kind).toBe('timeout');
  });

  it('reports the caller’s abort as kind "aborted", not as a timeout', async () => {
    const controller = new AbortController();
    const pending = createHttp({ fetch: stalled, timeoutMs: 60_000 }).getJson('/x', { signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('does not call fetch with an already aborted signal', async () => {
    const fetch = vi.fn<FetchLike>(() => ok('{}'));
    const error = await failure(createHttp({ fetch }).getJson('/x', { signal: AbortSignal.abort() }));
    expect(error.kind).toBe('aborted');
    expect(fetch).not.toHaveBeenCalled();
  });
});

/**
 * docs/requirements.md R85: the HTTP client's default timeout is 10 s. A request that never
 * answers is aborted at 10 000 ms, not before. Both ways the client builds its deadline are
 * driven by fake timers: AbortSignal.timeout (replaced by one on the faked setTimeout, since
 * Node's own runs on timers the fakes do not reach) and, for browsers without
 * AbortSignal.any (iOS Safari before 17.4), the client's own setTimeout.
 */
describe('http: the 10 s default timeout', () => {
  const nativeAny = Object.getOwnPropertyDescriptor(AbortSignal, 'any');

  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    if (nativeAny) Object.defineProperty(AbortSignal, 'any', nativeAny);
  });

  function timeoutOnFakeTimers() {
    vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms: number) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms);
      return controller.signal;
    });
  }

  function withoutAbortSignalAny() {
    Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true, writable: true });
  }

  it.each([
    ['AbortSignal.timeout and AbortSignal.any', timeoutOnFakeTimers],
    ['a browser without AbortSignal.any', withoutAbortSignalAny],
  ])('with %s, a request that never answers is aborted at 10 000 ms, not before', async (_name, arrange) => {
    arrange();
    const fetch = vi.fn<FetchLike>(stalled);
    // No timeoutMs anywhere: the client's default is what is measured.
    const outcome: { error?: unknown } = {};
    void createHttp({ fetch })
      .postForm('/ue/userinfo', { uid: 'demo', version: '1.0.0' })
      .then(
        () => {
          outcome.error = null;
        },
        (error: unknown) => {
          outcome.error = error;
        },
      );
    const signal = fetch.mock.calls[0]?.[1].signal;
    expect(signal).toBeDefined();

    await vi.advanceTimersByTimeAsync(9_999);
    expect(signal?.aborted).toBe(false);
    expect(outcome).toEqual({});

    await vi.advanceTimersByTimeAsync(1);
    // The rejection travels through a few promise steps; no further time passes.
    for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(0);
    expect(signal?.aborted).toBe(true);
    expect(outcome.error).toBeInstanceOf(HttpError);
    expect((outcome.error as HttpError).kind).toBe('timeout');
  });
});
