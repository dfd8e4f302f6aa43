import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearEarlyRequest, earlyFetch, startEarlyRequest } from './earlyRequest.ts';
import { createHttp, formRequest, HttpError } from './http.ts';

afterEach(clearEarlyRequest);

const answer = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('the early request', () => {
  it('is taken once by the same POST: the service sees one request, a second ask goes out', async () => {
    const network = vi.fn(async () => answer({ n: 'early' }));
    startEarlyRequest('/ue/userinfo', formRequest({ uid: 'demo', version: '1' }), network);
    const later = vi.fn(async () => answer({ n: 'later' }));
    const http = createHttp({ fetch: earlyFetch(later) });
    await expect(http.postForm('/ue/userinfo', { uid: 'demo', version: '1' })).resolves.toEqual({ n: 'early' });
    await expect(http.postForm('/ue/userinfo', { uid: 'demo', version: '1' })).resolves.toEqual({ n: 'later' });
    expect(network).toHaveBeenCalledTimes(1);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it('is not taken by another request (another id)', async () => {
    startEarlyRequest('/ue/userinfo', formRequest({ uid: 'demo', version: '1' }), async () => answer({ n: 'early' }));
    const http = createHttp({ fetch: earlyFetch(async () => answer({ n: 'own' })) });
    await expect(http.postForm('/ue/userinfo', { uid: 'other', version: '1' })).resolves.toEqual({ n: 'own' });
  });

  it('fails as the client would have: a 503 is an HttpError with its status', async () => {
    startEarlyRequest('/ue/userinfo', formRequest({ uid: 'demo', version: '1' }), async () => answer({}, 503));
    const http = createHttp({ fetch: earlyFetch(async () => answer({ n: 'own' })) });
    const error = await http.postForm('/ue/userinfo', { uid: 'demo', version: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
  });

  it('keeps the client timeout: an early request that never answers times out', async () => {
    startEarlyRequest('/ue/userinfo', formRequest({ uid: 'demo', version: '1' }), () => new Promise<Response>(() => {}));
    const http = createHttp({ fetch: earlyFetch(async () => answer({ n: 'own' })), timeoutMs: 20 });
    await expect(http.postForm('/ue/userinfo', { uid: 'demo', version: '1' })).rejects.toMatchObject({ kind: 'timeout' });
  });
});
