import { describe, expect, it, vi } from 'vitest';
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
