import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../events.ts';
import { clearFaults, setFaults } from '../../faults.ts';
import { applyLiveFaults } from '../../signaling/liveFaults.ts';
import { createLogger } from '../../log.ts';
import { FAKE_OFFER, startRoom, startTestStandin, type TestStandin } from '../testkit.ts';

let t: TestStandin;
beforeAll(async () => {
  t = await startTestStandin({ media: { ready: false } });
});
afterAll(() => t.close());
afterEach(async () => {
  clearFaults();
  await t.standin.rooms.closeAll();
});

interface Stream {
  name: string;
  publish: { active: boolean; cid?: string };
  video: unknown;
  audio: unknown;
  [key: string]: unknown;
}

async function streams(count = 100): Promise<{ code: number; streams: Stream[]; [key: string]: unknown }> {
  const res = await fetch(`${t.base}/api/v1/streams/?count=${count}`, { redirect: 'manual' });
  expect(res.status).toBe(200);
  return (await res.json()) as { code: number; streams: Stream[] };
}

const whep = (roomId: string, body: string = FAKE_OFFER, app = 'live'): Promise<Response> =>
  fetch(`${t.base}/rtc/v1/whep/?app=${app}&stream=${roomId}`, { method: 'POST', headers: { 'content-type': 'application/sdp' }, body });

/** A request from another address of this machine: another device, as far as the stand-in can tell. */
function fromAddress(localAddress: string, method: string, path: string, body = ''): Promise<{ status: number; text: string }> {
  const url = new URL(t.base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method, localAddress, headers: { 'content-type': 'application/sdp' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a stream belongs to the device that started it', () => {
  it('answers WHEP offers from its addresses only, and lists it to them only', async () => {
    const roomId = await startRoom(t.base);
    const other = await fromAddress('127.0.0.2', 'POST', `/rtc/v1/whep/?app=live&stream=${roomId}`, FAKE_OFFER);
    expect(other.status).toBe(403);
    expect(other.text).toMatch(/belongs to another device/);
    expect((await whep(roomId)).status).toBe(201);
    const listed = await fromAddress('127.0.0.2', 'GET', '/api/v1/streams/?count=100');
    expect((JSON.parse(listed.text) as { streams: Stream[] }).streams.map((s) => s.name)).not.toContain(roomId);
    expect((await streams()).streams.map((s) => s.name)).toContain(roomId);
  });
});

describe('GET /api/v1/streams/', () => {
  it('answers the path without the slash with the 302 SRS gives, to the slashed path with the same query', async () => {
    const res = await fetch(`${t.base}/api/v1/streams?count=100`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/api/v1/streams/?count=100');
    expect(await res.text()).toBe('Redirect to /api/v1/streams/?count=100');
  });

  it('lists a stream as active as soon as publishing starts, before any media; video and audio once media flows', async () => {
    const roomId = await startRoom(t.base);
    const media = t.medias.get(roomId)!;
    media.markPublishing();
    let stream = (await streams()).streams.find((s) => s.name === roomId)!;
    expect(stream.publish).toEqual({ active: true, cid: expect.any(String) });
    expect([stream.video, stream.audio]).toEqual([null, null]);
    media.markReady();
    await new Promise((r) => setImmediate(r));
    stream = (await streams()).streams.find((s) => s.name === roomId)!;
    expect(stream.video).toEqual({ codec: 'H264', profile: 'Baseline', level: '3.1', width: 540, height: 960 });
  });

  it('answers in SRS shape and lists a new room as not yet publishing', async () => {
    const roomId = await startRoom(t.base);
    const body = await streams();
    expect(body).toMatchObject({ code: 0, server: expect.stringMatching(/^vid-/), service: expect.any(String), pid: String(process.pid) });
    const stream = body.streams.find((s) => s.name === roomId)!;
    expect(Object.keys(stream).sort()).toEqual(
      ['id', 'name', 'vhost', 'app', 'tcUrl', 'url', 'live_ms', 'clients', 'frames', 'send_bytes', 'recv_bytes', 'kbps', 'publish', 'video', 'audio'].sort(),
    );
    expect(stream).toMatchObject({ app: 'live', url: `/live/${roomId}`, publish: { active: false }, video: null, audio: null });
    expect(stream.kbps).toEqual({ recv_30s: 0, send_30s: expect.any(Number) });
  });

  it('turns publish.active true once the media is really flowing', async () => {
    const roomId = await startRoom(t.base);
    t.medias.get(roomId)!.markReady();
    await new Promise((r) => setImmediate(r));
    const stream = (await streams()).streams.find((s) => s.name === roomId)!;
    expect(stream.publish).toEqual({ active: true, cid: expect.any(String) });
    expect(stream.video).toEqual({ codec: 'H264', profile: 'Baseline', level: '3.1', width: 540, height: 960 });
    expect(stream.audio).toEqual({ codec: 'Opus', sample_rate: 48000, channel: 2, profile: 'Other' });
    expect(stream).toMatchObject({ frames: 42, send_bytes: 123_456, kbps: { recv_30s: 0, send_30s: 480 } });
  });

  it('keeps publish.active false under stream-never-active', async () => {
    setFaults(['stream-never-active']);
    const roomId = await startRoom(t.base);
    t.medias.get(roomId)!.markReady();
    await new Promise((r) => setImmediate(r));
    expect((await streams()).streams.find((s) => s.name === roomId)!.publish.active).toBe(false);
  });

  it('limits the list to count', async () => {
    await startRoom(t.base);
    await startRoom(t.base);
    expect((await streams(1)).streams).toHaveLength(1);
    expect((await streams(100)).streams).toHaveLength(2);
  });

  it('drops a stopped room from the list', async () => {
    const roomId = await startRoom(t.base);
    await t.standin.rooms.stop(roomId, 'test');
    expect((await streams()).streams.some((s) => s.name === roomId)).toBe(false);
  });
});

describe('WHEP', () => {
  it('answers an offer with 201, application/sdp and a Location', async () => {
    const roomId = await startRoom(t.base);
    const res = await whep(roomId);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/sdp');
    expect(await res.text()).toContain('fake-answer peer-1');
    expect(res.headers.get('location')).toMatch(new RegExp(`^/rtc/v1/whep/\\?action=delete&token=[0-9a-f]{16}&app=live&stream=${roomId}&session=peer-1$`));
  });

  it('closes the peer at once on DELETE of the Location and records it as a whep event; a second DELETE, or one after stop_live, is 200 as in SRS', async () => {
    const roomId = await startRoom(t.base);
    const media = t.medias.get(roomId)!;
    const location = (await whep(roomId)).headers.get('location')!;
    await new Promise((r) => setImmediate(r));
    expect(media.peerCount()).toBe(1);
    const res = await fetch(t.base + location, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(media.peerCount()).toBe(0);
    const deletes = listEvents().filter((e) => e.channel === 'whep' && (e.body as { method?: string }).method === 'DELETE');
    expect(deletes.at(-1)?.body).toEqual({ roomId, peerId: 'peer-1', method: 'DELETE' });
    const again = await fetch(t.base + location, { method: 'DELETE' });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe('already closed: peer-1');
    // The room stopped before the hang-up reached it: still 200.
    const second = (await whep(roomId)).headers.get('location')!;
    await t.standin.rooms.stop(roomId, 'stop_live');
    const late = await fetch(t.base + second, { method: 'DELETE' });
    expect(late.status).toBe(200);
    expect(await late.text()).toBe('already closed: peer-2');
  });

  it('answers DELETE of a forged session 403, and one without its token or with a wrong token 400/403', async () => {
    const roomId = await startRoom(t.base);
    const location = (await whep(roomId)).headers.get('location')!;
    const forged = location.replace(/session=[^&]+/, 'session=peer-99');
    expect((await fetch(t.base + forged, { method: 'DELETE' })).status).toBe(403);
    expect((await fetch(`${t.base}/rtc/v1/whep/?app=live&stream=${roomId}&session=peer-1`, { method: 'DELETE' })).status).toBe(400);
    expect(t.medias.get(roomId)!.peerCount()).toBe(1);
  });

  it('closes the connection without an HTTP answer for an offer without H.264, as SRS does', async () => {
    const roomId = await startRoom(t.base);
    const vp8Only = FAKE_OFFER.replace('H264/90000', 'VP8/90000');
    await expect(whep(roomId, vp8Only)).rejects.toThrow(TypeError);
    expect(t.medias.get(roomId)!.peerCount()).toBe(0);
  });

  it('under whep-refuse closes the connection of every offer without an HTTP answer', async () => {
    setFaults(['whep-refuse']);
    const roomId = await startRoom(t.base);
    await expect(whep(roomId)).rejects.toThrow(TypeError);
  });

  it('under whep-no-media answers 201 with an answer but the peer gets no media', async () => {
    setFaults(['whep-no-media']);
    const roomId = await startRoom(t.base);
    const res = await whep(roomId);
    expect(res.status).toBe(201);
    expect(t.medias.get(roomId)!.silentPeers).toEqual(['peer-1']);
  });

  it('takes an offer up to 128 KB and answers a larger one 413', async () => {
    const roomId = await startRoom(t.base);
    const pad = (bytes: number) => FAKE_OFFER + 'a=x-pad:' + 'p'.repeat(bytes - FAKE_OFFER.length - 10) + '\r\n';
    expect((await whep(roomId, pad(100 * 1024))).status).toBe(201);
    const big = await whep(roomId, pad(129 * 1024));
    expect(big.status).toBe(413);
    expect(await big.text()).toMatch(/too large/);
  });

  it('answers an unknown stream with 404 and an unknown app with 404', async () => {
    const missing = await whep('room_ffffffffffff');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('stream not found: room_ffffffffffff');
    const roomId = await startRoom(t.base);
    expect((await whep(roomId, FAKE_OFFER, 'other')).status).toBe(404);
  });

  it('answers garbage SDP with 400 and a clear text', async () => {
    const roomId = await startRoom(t.base);
    const notSdp = await whep(roomId, 'hello there');
    expect(notSdp.status).toBe(400);
    expect(await notSdp.text()).toBe('not an SDP offer: it must start with "v=0"');
    const noMedia = await whep(roomId, 'v=0\r\ns=-\r\n');
    expect(noMedia.status).toBe(400);
    expect(await noMedia.text()).toBe('bad SDP offer: the offer has no media sections (m= lines)');
  });

  it('fails every new WHEP of a room once media-down has dropped it (503)', async () => {
    setFaults(['media-down']);
    const roomId = await startRoom(t.base);
    const room = t.standin.rooms.get(roomId)!;
    expect((await whep(roomId)).status).toBe(201);
    applyLiveFaults(room, createLogger('test'));
    expect(t.medias.get(roomId)!.dropCount).toBe(1);
    const res = await whep(roomId);
    expect(res.status).toBe(503);
    expect(await res.text()).toMatch(/media-down/);
    clearFaults();
    expect((await whep(roomId)).status).toBe(201);
  });
});
