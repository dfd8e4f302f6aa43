import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { activeFaults, clearFaults, FAULT_NAMES } from './faults.ts';
import { CLOSE_DROPPED } from './signaling/session.ts';
import { FAKE_OFFER, isCommand, postJson, SignalingClient, startRoom, startTestStandin, type TestStandin } from './http/testkit.ts';

let t: TestStandin;
let clients: SignalingClient[] = [];
beforeAll(async () => {
  t = await startTestStandin({ media: { speechMs: 10 } });
});
afterAll(() => t.close());
afterEach(async () => {
  clearFaults();
  for (const c of clients) c.close();
  clients = [];
  await t.standin.rooms.closeAll();
});

async function liveSession(): Promise<{ roomId: string; c: SignalingClient }> {
  const roomId = await startRoom(t.base);
  const c = await SignalingClient.connect(t.wsUrl);
  clients.push(c);
  c.send({ type: 'offer_2', room_id: roomId, deviceId: 'H5test' });
  await c.next(isCommand('asr_ready'));
  await fetch(`${t.base}/rtc/v1/whep/?app=live&stream=${roomId}`, { method: 'POST', body: FAKE_OFFER });
  await expect.poll(() => t.standin.rooms.get(roomId)?.isLive()).toBe(true);
  return { roomId, c };
}

describe('/__standin/faults', () => {
  it('sets faults for every later request, and DELETE clears them', async () => {
    const set = await postJson(t.base, '/__standin/faults', { faults: ['route-code1', 'media-drop'] });
    expect(set).toEqual({ status: 200, json: { faults: ['route-code1', 'media-drop'] } });
    expect((await postJson(t.base, '/get/route', { uid: 'demo' })).json).toEqual({ code: 1, msg: 'route refused' });
    expect(await (await fetch(`${t.base}/__standin/faults`)).json()).toEqual({ faults: ['route-code1', 'media-drop'] });
    const cleared = await fetch(`${t.base}/__standin/faults`, { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ faults: [] });
    expect(activeFaults()).toEqual([]);
  });

  it('replaces the previous set', async () => {
    await postJson(t.base, '/__standin/faults', { faults: ['route-error'] });
    await postJson(t.base, '/__standin/faults', { faults: ['start-live-error'] });
    expect(activeFaults()).toEqual(['start-live-error']);
  });

  it('answers unknown names with 400 listing the valid ones, and changes nothing', async () => {
    await postJson(t.base, '/__standin/faults', { faults: ['route-error'] });
    const { status, json } = await postJson(t.base, '/__standin/faults', { faults: ['route-error', 'explode'] });
    expect(status).toBe(400);
    expect(json.msg).toMatch(/unknown fault names: "explode"; valid: route-code1, /);
    expect(json.valid).toEqual([...FAULT_NAMES]);
    expect(activeFaults()).toEqual(['route-error']);
  });

  it('requires an array', async () => {
    expect((await postJson(t.base, '/__standin/faults', { faults: 'route-error' })).status).toBe(400);
  });
});

describe('/__standin/strike', () => {
  it('drops the live sessions\' signaling and media now, again each time it is asked', async () => {
    const { roomId, c } = await liveSession();
    const media = t.medias.get(roomId)!;
    const first = await postJson(t.base, '/__standin/strike', { faults: ['media-drop'] });
    expect(first).toEqual({ status: 200, json: { code: 0, rooms: [roomId] } });
    expect(media.dropCount).toBe(1);
    expect(c.closed).toBeNull();
    // Reconnect the media: the room is live again and can be struck again, signaling too.
    await fetch(`${t.base}/rtc/v1/whep/?app=live&stream=${roomId}`, { method: 'POST', body: FAKE_OFFER });
    await expect.poll(() => t.standin.rooms.get(roomId)?.isLive()).toBe(true);
    const second = await postJson(t.base, '/__standin/strike', { faults: ['signaling-drop', 'media-drop'] });
    expect(second.json).toEqual({ code: 0, rooms: [roomId] });
    expect(media.dropCount).toBe(2);
    expect((await c.waitClose()).code).toBe(CLOSE_DROPPED);
    expect(activeFaults()).toEqual([]);
  });

  it('drops the media silently too (media-silent, as SRS\'s kick), as often as asked', async () => {
    const { roomId } = await liveSession();
    const media = t.medias.get(roomId)!;
    expect((await postJson(t.base, '/__standin/strike', { faults: ['media-silent'] })).json).toEqual({ code: 0, rooms: [roomId] });
    expect(media.silenceCount).toBe(1);
    expect(media.dropCount).toBe(0);
    expect(media.peerCount()).toBe(0);
  });

  it('refuses anything but signaling-drop, media-drop and media-silent, and answers 409 with no live session', async () => {
    for (const body of [{}, { faults: [] }, { faults: ['media-down'] }, { faults: 'media-drop' }]) {
      expect((await postJson(t.base, '/__standin/strike', body)).status).toBe(400);
    }
    expect((await postJson(t.base, '/__standin/strike', { faults: ['media-drop'] })).status).toBe(409);
  });
});

describe('/__standin/say', () => {
  it('makes the avatar speak and send the reply to the live session', async () => {
    const { roomId, c } = await liveSession();
    const { status, json } = await postJson(t.base, '/__standin/say', {
      text: 'Welcome to the spring sale.',
      image_url: 'http://example.test/i.png',
      related: ['tell me about the discount'],
    });
    expect(status).toBe(200);
    expect(json).toEqual({ code: 0, rooms: [roomId] });
    const end = await c.next(isCommand('nlp_end'));
    const parts = c.frames.filter((f) => f.msg_type === 'tts' && f.msg_id === end.msg_id);
    expect(parts).toEqual([
      { msg_type: 'tts', msg_id: end.msg_id, text: 'Welcome to the spring sale.' },
      { msg_type: 'tts', msg_id: end.msg_id, image_url: 'http://example.test/i.png' },
      { msg_type: 'tts', msg_id: end.msg_id, related_qa: ['tell me about the discount'] },
    ]);
    expect(t.medias.get(roomId)!.spoken).toEqual([{ text: 'Welcome to the spring sale.', lang: 'en' }]);
  });

  it('answers 409 when no session is live', async () => {
    const roomId = await startRoom(t.base);
    const c = await SignalingClient.connect(t.wsUrl);
    clients.push(c);
    c.send({ type: 'offer_2', room_id: roomId, deviceId: 'H5test' });
    await c.next(isCommand('asr_ready'));
    const { status, json } = await postJson(t.base, '/__standin/say', { text: 'Hello.' });
    expect(status).toBe(409);
    expect(json.msg).toMatch(/no live session/);
  });

  it('validates the body', async () => {
    const { status, json } = await postJson(t.base, '/__standin/say', { video_url: 'ftp://x/v.mp4' });
    expect(status).toBe(400);
    expect(json.msg).toBe('video_url must be an http(s) URL');
  });
});

describe('/__standin/events', () => {
  it('lists what the stand-in saw, oldest first, and DELETE clears it', async () => {
    await fetch(`${t.base}/__standin/events`, { method: 'DELETE' });
    await postJson(t.base, '/get/route', { uid: 'demo', serverName: 'standin' });
    const events = (await (await fetch(`${t.base}/__standin/events`)).json()) as { t: number; channel: string; dir: string; body: unknown }[];
    expect(events.map((e) => [e.channel, e.dir])).toEqual([
      ['http', 'in'],
      ['http', 'out'],
    ]);
    expect(events[0]!.t).toBeLessThanOrEqual(events[1]!.t);
    expect(events[0]!.body).toEqual({ method: 'POST', path: '/get/route', body: { uid: 'demo', serverName: 'standin' } });
    expect((await fetch(`${t.base}/__standin/events`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(`${t.base}/__standin/events`)).json()).toEqual([]);
  });
});

describe('who may use the controls (docs/contract.md C11)', () => {
  it('refuses another origin with 403, and sends no CORS header to anyone', async () => {
    const foreign = await fetch(`${t.base}/__standin/events`, { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const own = await fetch(`${t.base}/__standin/events`, { headers: { origin: t.base } });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    const none = await fetch(`${t.base}/__standin/events`);
    expect(none.status).toBe(200);
  });

  it('takes a body only as application/json (415)', async () => {
    const res = await fetch(`${t.base}/__standin/faults`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"faults":["route-error"]}' });
    expect(res.status).toBe(415);
    expect(activeFaults()).toEqual([]);
  });

  it('applies a further rule given as controlAllowed', async () => {
    const strict = await startTestStandin({ controlAllowed: (req) => req.headers['x-allowed'] === 'yes' });
    try {
      expect((await fetch(`${strict.base}/__standin/events`)).status).toBe(403);
      expect((await fetch(`${strict.base}/__standin/events`, { headers: { 'x-allowed': 'yes' } })).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('outside the local and test environments', () => {
  it('does not mount the control endpoints', async () => {
    const product = await startTestStandin({ env: 'product' });
    try {
      expect((await fetch(`${product.base}/__standin/events`)).status).toBe(404);
      expect((await postJson(product.base, '/__standin/faults', { faults: ['route-error'] })).status).toBe(404);
      expect(activeFaults()).toEqual([]);
    } finally {
      await product.close();
    }
  });
});
