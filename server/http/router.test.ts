import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearEvents, listEvents } from '../events.ts';
import { LIMITS } from './body.ts';
import { startTestStandin, type TestStandin } from './testkit.ts';

let t: TestStandin;
beforeAll(async () => {
  t = await startTestStandin();
});
afterAll(() => t.close());
beforeEach(() => clearEvents());

describe('bodies', () => {
  it('answers malformed JSON with 400 and {code:-1,msg}', async () => {
    const res = await fetch(`${t.base}/get/route`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"uid": "demo"' });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { code: number; msg: string };
    expect(json.code).toBe(-1);
    expect(json.msg).toMatch(/^malformed JSON/);
  });

  it('refuses a JSON body that is not an object', async () => {
    const res = await fetch(`${t.base}/start_live`, { method: 'POST', body: '[1,2]' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { msg: string }).msg).toBe('malformed JSON: expected an object');
  });

  it('refuses an oversized JSON body with 413', async () => {
    const body = JSON.stringify({ uid: 'x'.repeat(LIMITS.json + 10) });
    const res = await fetch(`${t.base}/get/route`, { method: 'POST', body });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { msg: string }).msg).toMatch(/body too large/);
  });

  it('refuses an oversized body sent without Content-Length (chunked) with 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(32 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 6) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${t.base}/start_live`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('refuses an oversized SDP offer with 413', async () => {
    const roomId = (await (await fetch(`${t.base}/start_live`, { method: 'POST', body: JSON.stringify({ app_id: 'a', uid: 'demo', device_id: 'd' }) })).json()) as { room_id: string };
    const res = await fetch(`${t.base}/rtc/v1/whep/?app=live&stream=${roomId.room_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: `v=0\r\n${'a=x\r\n'.repeat(LIMITS.sdp / 5)}`,
    });
    expect(res.status).toBe(413);
  });
});

describe('routing', () => {
  it('answers unknown paths with 404', async () => {
    const res = await fetch(`${t.base}/no/such/path`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: -1, msg: 'not found: /no/such/path' });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await fetch(`${t.base}/start_live`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers CORS to an allowed origin only (the app hosted elsewhere), with Vary: Origin, and none to the app\'s own pages', async () => {
    const hosted = await startTestStandin({ allowedOrigins: ['http://elsewhere:5173'] });
    try {
      const pre = await fetch(`${hosted.base}/rtc/v1/whep/?app=live&stream=x`, {
        method: 'OPTIONS',
        headers: { origin: 'http://elsewhere:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('http://elsewhere:5173');
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      expect(pre.headers.get('access-control-allow-headers')).toBe('content-type');
      const res = await fetch(`${hosted.base}/ue/userinfo`, { method: 'POST', headers: { origin: 'http://elsewhere:5173' }, body: new URLSearchParams({ uid: 'demo' }) });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://elsewhere:5173');
      expect(res.headers.get('access-control-expose-headers')).toBe('Location');
      expect(res.headers.get('vary')).toBe('Origin');
      // The app's own page and a client without Origin need no CORS, and get none.
      for (const headers of [{ origin: hosted.base }, {}] as Record<string, string>[]) {
        const own = await fetch(`${hosted.base}/ue/userinfo`, { method: 'POST', headers, body: new URLSearchParams({ uid: 'demo' }) });
        expect(own.status).toBe(200);
        expect(own.headers.get('access-control-allow-origin')).toBeNull();
      }
    } finally {
      await hosted.close();
    }
  });

  it('refuses (403) a preflight or request from another origin or site on a service path, without CORS headers', async () => {
    const evil = { origin: 'http://evil.example' };
    const pre = await fetch(`${t.base}/start_live`, { method: 'OPTIONS', headers: { ...evil, 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(403);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const res = await fetch(`${t.base}/api/v1/streams/`, { headers: evil });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await res.json()) as { msg: string }).msg).toMatch(/another origin \(http:\/\/evil\.example\)/);
    // A cross-site GET carries no Origin; Fetch Metadata names it.
    expect((await fetch(`${t.base}/api/v1/streams/`, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    const whep = await fetch(`${t.base}/rtc/v1/whep/?app=live&stream=x`, { method: 'POST', headers: { ...evil, 'content-type': 'application/sdp' }, body: 'v=0' });
    expect(whep.status).toBe(403);
    expect(await whep.text()).toMatch(/another origin/);
  });

  it('records the spec API calls as http events, in and out', async () => {
    await fetch(`${t.base}/ue/userinfo`, { method: 'POST', body: new URLSearchParams({ uid: 'nobody', version: '1.0.0' }) });
    const events = listEvents().filter((e) => e.channel === 'http');
    expect(events.map((e) => e.dir)).toEqual(['in', 'out']);
    expect(events[0]!.body).toEqual({ method: 'POST', path: '/ue/userinfo', body: { uid: 'nobody', version: '1.0.0' } });
    expect(events[1]!.body).toEqual({ method: 'POST', path: '/ue/userinfo', status: 200, body: { code: 0, data: {} } });
  });

  it('does not record control calls', async () => {
    await fetch(`${t.base}/__standin/faults`);
    expect(listEvents()).toEqual([]);
  });
});
