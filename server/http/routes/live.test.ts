import { createHmac } from 'node:crypto';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../events.ts';
import { clearFaults, setFaults } from '../../faults.ts';
import { postJson, startRoom, startTestStandin, type TestStandin } from '../testkit.ts';

let t: TestStandin;
beforeAll(async () => {
  t = await startTestStandin({ maxRooms: 3, allowedHosts: ['demo.example'] });
});
afterAll(() => t.close());
afterEach(async () => {
  clearFaults();
  await t.standin.rooms.closeAll();
});

/** A raw request, so the Host header can be set freely. */
function rawPost(path: string, body: string, host: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const url = new URL(t.base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(data) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** start_live from another address of this machine (another device, as the stand-in sees it). */
function rawStart(base: string, localAddress: string): Promise<Record<string, unknown>> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ app_id: 'a', uid: 'demo', device_id: `d-${localAddress}` });
    const req = http.request({ host: url.hostname, port: url.port, path: '/start_live', method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve(JSON.parse(data) as Record<string, unknown>));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A start_live the client gives up on while the stand-in holds it: aborted once the stand-in has
 * read it (its `in` event), not after a guessed delay that a slow machine may not have reached.
 */
async function startLiveGivenUp(): Promise<void> {
  const read = () => listEvents().filter((e) => e.channel === 'http' && e.dir === 'in' && (e.body as { path?: string }).path === '/start_live').length;
  const before = read();
  const abort = new AbortController();
  const pending = fetch(`${t.base}/start_live`, { method: 'POST', body: JSON.stringify({ app_id: 'a', uid: 'demo', device_id: 'd' }), signal: abort.signal });
  await expect.poll(read).toBe(before + 1);
  abort.abort();
  await expect(pending).rejects.toThrow();
}

describe('POST /get/route', () => {
  it('returns the signaling and media links of this origin', async () => {
    const { status, json } = await postJson(t.base, '/get/route', { uid: 'demo', serverName: 'standin' });
    expect(status).toBe(200);
    expect(json).toEqual({
      code: 0,
      msg: 'ok',
      data: { webglLin: '', websockLink: `${t.wsUrl}`, srsLink: t.base },
    });
  });

  it('builds the links from the Host header (an allowed name or an address), and refuses a Host that is not a host', async () => {
    const good = await rawPost('/get/route', '{"uid":"demo"}', 'demo.example:9000');
    expect((good.json.data as Record<string, string>).websockLink).toBe('ws://demo.example:9000/ws/signaling');
    const address = await rawPost('/get/route', '{"uid":"demo"}', '192.0.2.7:9000');
    expect((address.json.data as Record<string, string>).srsLink).toBe('http://192.0.2.7:9000');
    const bad = await rawPost('/get/route', '{"uid":"demo"}', 'evil.example/"><script>');
    expect(bad.status).toBe(403);
    expect(bad.json.data).toBeUndefined();
  });

  it("hands each page the relay with a credential of its own, signed with the relay's secret and valid for a day", async () => {
    const secret = 'relay-secret-of-this-test';
    let up = true;
    const withRelay = await startTestStandin({ relay: { secret, available: () => up } });
    try {
      const port = new URL(withRelay.base).port;
      const routeOf = async () => ((await postJson(withRelay.base, '/get/route', { uid: 'demo', serverName: 'standin' })).json.data as Record<string, unknown>).iceServers;
      const [first] = (await routeOf()) as { urls: string[]; username: string; credential: string }[];
      expect(first!.urls).toEqual([`turn:127.0.0.1:${port}?transport=udp`]);
      const [expiry, tag] = first!.username.split(':');
      expect(Number(expiry) - Date.now() / 1000).toBeGreaterThan(24 * 3600 - 60);
      expect(Number(expiry) - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600);
      expect(tag).toMatch(/^[0-9a-f]{12}$/);
      expect(first!.credential).toBe(createHmac('sha1', secret).update(first!.username).digest('base64'));
      const [second] = (await routeOf()) as { username: string }[];
      expect(second!.username, 'each route answer gets its own').not.toBe(first!.username);
      // No relay running: no credential, and the client keeps its build's ICE servers.
      up = false;
      expect(await routeOf()).toBeUndefined();
    } finally {
      await withRelay.close();
    }
  });

  it('requires a uid', async () => {
    const { status, json } = await postJson(t.base, '/get/route', { serverName: 'standin' });
    expect(status).toBe(400);
    expect(json).toEqual({ code: -1, msg: 'uid required' });
  });

  it('answers {"code":1,"msg":"route refused"} under route-code1', async () => {
    setFaults(['route-code1']);
    const { status, json } = await postJson(t.base, '/get/route', { uid: 'demo', serverName: 'standin' });
    expect(status).toBe(200);
    expect(json).toEqual({ code: 1, msg: 'route refused' });
  });

  it('answers HTTP 500 under route-error', async () => {
    setFaults(['route-error']);
    const { status } = await postJson(t.base, '/get/route', { uid: 'demo', serverName: 'standin' });
    expect(status).toBe(500);
  });
});

describe('POST /start_live', () => {
  it('starts a room with a unique id', async () => {
    const a = await postJson(t.base, '/start_live', { app_id: 'standin-demo', uid: 'demo', device_id: 'H5a' });
    const b = await postJson(t.base, '/start_live', { app_id: 'standin-demo', uid: 'demo', device_id: 'H5b' });
    expect(a.json).toMatchObject({ status: 'success', system_type: 'standin' });
    expect(a.json.room_id).toMatch(/^room_[0-9a-f]{12}$/);
    expect(b.json.room_id).not.toBe(a.json.room_id);
    expect(t.standin.rooms.get(a.json.room_id as string)?.deviceId).toBe('H5a');
  });

  it('requires app_id, uid and device_id', async () => {
    const { status, json } = await postJson(t.base, '/start_live', { app_id: 'standin-demo', uid: 'demo' });
    expect(status).toBe(400);
    expect(json).toEqual({ status: 'error', errmsg: 'device_id required' });
  });

  it('answers "no avatar available" under start-live-error, starting nothing', async () => {
    setFaults(['start-live-error']);
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd' });
    expect(json).toEqual({ status: 'error', errmsg: 'no avatar available' });
    expect(t.standin.rooms.size).toBe(0);
  });

  it('answers 503 with no JSON under start-live-down, and a refusal without words under start-live-error-empty, starting nothing', async () => {
    setFaults(['start-live-down']);
    const down = await fetch(`${t.base}/start_live`, { method: 'POST', body: JSON.stringify({ app_id: 'a', uid: 'demo', device_id: 'd' }) });
    expect(down.status).toBe(503);
    expect(down.headers.get('content-type')).not.toMatch(/json/);
    await down.text();
    setFaults(['start-live-error-empty']);
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd' });
    expect(json).toEqual({ status: 'error', errmsg: '' });
    expect(t.standin.rooms.size).toBe(0);
  });

  it('refuses once every avatar is busy', async () => {
    for (let i = 0; i < 3; i++) await startRoom(t.base);
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd' });
    expect(json).toEqual({ status: 'error', errmsg: 'no avatar available' });
  });

  it('refuses a start from an address that holds its share as start-live-error does, saying why, and serves another address', async () => {
    const shared = await startTestStandin({ maxRooms: 3, maxRoomsPerAddress: 2 });
    try {
      const start = (localAddress: string) => rawStart(shared.base, localAddress);
      expect((await start('127.0.0.1')).status).toBe('success');
      expect((await start('127.0.0.1')).status).toBe('success');
      const refused = await start('127.0.0.1');
      expect(Object.keys(refused)).toEqual(['status', 'errmsg']);
      expect(refused.status).toBe('error');
      expect(refused.errmsg).toMatch(/^no avatar available: this device already has 2 chats open, the most one device may/);
      expect((await start('127.0.0.2')).status).toBe('success');
      expect(await start('127.0.0.3')).toEqual({ status: 'error', errmsg: 'no avatar available' });
    } finally {
      await shared.close();
    }
  });

  it('holds the answer under start-live-slow', async () => {
    setFaults(['start-live-slow']);
    const started = Date.now();
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(json.status).toBe('success');
  });

  it('starts no room when the client gives up during start-live-slow', async () => {
    setFaults(['start-live-slow']);
    await startLiveGivenUp();
    // A second start_live, held as long and begun later, is answered after the first's hold
    // would have ended: only its own room exists.
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd2' });
    expect(t.standin.rooms.list().map((r) => r.id)).toEqual([json.room_id]);
  });
});

describe('POST /start_live under start-live-late', () => {
  it('makes the room when the request arrives and answers with it once the fault is cleared', async () => {
    const t2 = await startTestStandin({ lateStartMs: 60_000 });
    try {
      setFaults(['start-live-late']);
      let answered = false;
      const pending = postJson(t2.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd' }).finally(() => (answered = true));
      await expect.poll(() => t2.standin.rooms.size).toBe(1);
      // Held for as long as the fault stays (lateStartMs is a minute here).
      expect(answered).toBe(false);
      clearFaults();
      const { json } = await pending;
      expect(json).toMatchObject({ status: 'success', room_id: t2.standin.rooms.list()[0]!.id });
    } finally {
      await t2.close();
    }
  });

  it('answers after lateStartMs at the latest when the fault stays set', async () => {
    setFaults(['start-live-late']);
    const started = Date.now();
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(json).toMatchObject({ status: 'success', room_id: t.standin.rooms.list()[0]!.id });
  });

  it('keeps the room when the client gives up before the answer, as the real service does', async () => {
    setFaults(['start-live-late']);
    await startLiveGivenUp();
    const [abandoned] = t.standin.rooms.list();
    expect(abandoned).toBeDefined();
    // A second start_live, held as long and begun later: once it is answered, the first's hold
    // is over too, and its room is still there beside the second's.
    const { json } = await postJson(t.base, '/start_live', { app_id: 'a', uid: 'demo', device_id: 'd2' });
    expect(t.standin.rooms.list().map((r) => r.id)).toEqual([abandoned!.id, json.room_id]);
  });
});

describe('POST /stop_live', () => {
  it('stops the room and its media', async () => {
    const roomId = await startRoom(t.base, 'demo', 'H5x');
    const media = t.medias.get(roomId)!;
    const { status, json } = await postJson(t.base, '/stop_live', { room_id: roomId, device_id: 'H5x' });
    expect(status).toBe(200);
    expect(json).toEqual({ data: { code: 200002, msg: 'stopped' } });
    expect(media.closed).toBe(true);
    expect(t.standin.rooms.get(roomId)).toBeUndefined();
  });

  it('answers an unknown room with 404 and data.code 404', async () => {
    const { status, json } = await postJson(t.base, '/stop_live', { room_id: 'room_000000000000', device_id: 'H5x' });
    expect(status).toBe(404);
    expect(json).toEqual({ data: { code: 404, msg: 'room not found: room_000000000000' } });
  });

  it('refuses to stop a room for another device', async () => {
    const roomId = await startRoom(t.base, 'demo', 'H5owner');
    const { status, json } = await postJson(t.base, '/stop_live', { room_id: roomId, device_id: 'H5other' });
    expect(status).toBe(403);
    expect((json.data as { code: number }).code).toBe(403);
    expect(t.standin.rooms.get(roomId)).toBeDefined();
  });

  it('requires room_id', async () => {
    const { status, json } = await postJson(t.base, '/stop_live', { device_id: 'H5x' });
    expect(status).toBe(400);
    expect(json).toEqual({ data: { code: 400, msg: 'room_id required' } });
  });
});
