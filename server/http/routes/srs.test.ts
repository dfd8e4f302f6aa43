import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
  const res = await fetch(`${t.base}/api/v1/streams?count=${count}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { code: number; streams: Stream[] };
}

const whep = (roomId: string, body: string = FAKE_OFFER, app = 'live') =>
  fetch(`${t.base}/rtc/v1/whep/?app=${app}&stream=${roomId}`, { method: 'POST', headers: { 'content-type': 'application/sdp' }, body });

describe('GET /api/v1/streams', () => {
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
    expect(stream.video).toEqual({ codec: 'VP8', profile: 'Other', level: 'Other', width: 360, height: 640 });
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
    expect(res.headers.get('location')).toBe(`/rtc/v1/whep/?app=live&stream=${roomId}&session=peer-1`);
  });

  it('closes the peer on DELETE of the Location', async () => {
    const roomId = await startRoom(t.base);
    const media = t.medias.get(roomId)!;
    const location = (await whep(roomId)).headers.get('location')!;
    await new Promise((r) => setImmediate(r));
    expect(media.peerCount()).toBe(1);
    const res = await fetch(t.base + location, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(media.peerCount()).toBe(0);
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
