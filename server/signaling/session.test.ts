import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearEvents, listEvents } from '../events.ts';
import { ASR_END_QUIET_MS } from './session.ts';
import { isCommand, SignalingClient, startRoom, startTestStandin, type Frame, type TestStandin } from '../http/testkit.ts';

let t: TestStandin;
let clients: SignalingClient[] = [];
beforeAll(async () => {
  t = await startTestStandin({ media: { speechMs: 15 } });
});
afterAll(() => t.close());
beforeEach(() => clearEvents());
afterEach(async () => {
  for (const c of clients) c.close();
  clients = [];
  await t.standin.rooms.closeAll();
});

async function joined(): Promise<{ c: SignalingClient; roomId: string }> {
  const roomId = await startRoom(t.base);
  const c = await SignalingClient.connect(t.wsUrl);
  clients.push(c);
  c.send({ type: 'offer_2', room_id: roomId, app_id: 'standin-demo', deviceId: 'H5test' });
  await c.next(isCommand('asr_ready'));
  return { c, roomId };
}

const frame = (roomId: string, extra: Frame): Frame => ({ room_id: roomId, app_id: 'standin-demo', deviceId: 'H5test', ...extra });
const replyFrames = (frames: Frame[], msgId: unknown) => frames.filter((f) => f.msg_id === msgId).map((f) => f.command ?? (f.text !== undefined ? 'text' : Object.keys(f).find((k) => k.endsWith('_url') || k === 'related_qa')));

describe('offer_2', () => {
  it('binds the socket to the room and answers asr_ready', async () => {
    const { c, roomId } = await joined();
    expect(c.frames[0]).toEqual({ msg_type: 'command', command: 'asr_ready' });
    expect(t.standin.rooms.get(roomId)!.clients.size).toBe(1);
  });

  it('answers an unknown room with an error and keeps the socket open', async () => {
    const c = await SignalingClient.connect(t.wsUrl);
    clients.push(c);
    c.send({ type: 'offer_2', room_id: 'room_nope' });
    expect(await c.next((f) => f.msg_type === 'error')).toEqual({ msg_type: 'error', text: 'offer_2: unknown room room_nope' });
    expect(c.closed).toBeNull();
  });

  it('refuses a join with another device id than the one that started the room: no asr_ready, no break reaches its avatar', async () => {
    const { roomId } = await joined();
    const media = t.medias.get(roomId)!;
    for (const deviceId of ['H5someoneelse', undefined]) {
      const other = await SignalingClient.connect(t.wsUrl);
      clients.push(other);
      other.send({ type: 'offer_2', room_id: roomId, app_id: 'standin-demo', ...(deviceId ? { deviceId } : {}) });
      expect((await other.next((f) => f.msg_type === 'error')).text).toBe(`offer_2: room ${roomId} was started by another device (send the deviceId that started it)`);
      const stops = media.stopCount;
      other.send({ type: 'break', room_id: roomId, deviceId });
      expect((await other.next((f) => f.msg_type === 'error' && f.text === 'break: send offer_2 first')).text).toBeDefined();
      expect(media.stopCount).toBe(stops);
      expect(other.frames.some((f) => f.command === 'asr_ready')).toBe(false);
    }
    expect(t.standin.rooms.get(roomId)!.clients.size).toBe(1);
  });

  it('refuses other frames before offer_2', async () => {
    const c = await SignalingClient.connect(t.wsUrl);
    clients.push(c);
    c.send({ type: 'say_hello', data: { lang: 'en' } });
    expect((await c.next((f) => f.msg_type === 'error')).text).toBe('say_hello: send offer_2 first');
  });
});

describe('replies', () => {
  it('answers say_hello with the greeting, frame by frame in order', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'say_hello', data: { lang: 'en' } }));
    const end = await c.next(isCommand('nlp_end'));
    expect(replyFrames(c.frames, end.msg_id)).toEqual(['nlp_ready', 'nlp_running', 'text', 'text', 'related_qa', 'nlp_end']);
    const texts = c.frames.filter((f) => f.msg_type === 'tts' && f.text).map((f) => f.text);
    expect(texts[0]).toMatch(/^Hello, I am Ava/);
    expect(t.medias.get(roomId)!.spoken.map((s) => s.text)).toEqual(texts);
  });

  it('echoes an nlpmsg as asr and answers it from the knowledge base with absolute media URLs', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'message_text', source: 'nlpmsg', text: 'show me the new products', data: { msg_id: 'u-1', lang: 'en' } }));
    const end = await c.next(isCommand('nlp_end'));
    expect(c.frames[1]).toEqual({ msg_type: 'asr', msg_id: 'u-1', text: 'show me the new products' });
    expect(replyFrames(c.frames, end.msg_id)).toEqual(['nlp_ready', 'nlp_running', 'text', 'image_url', 'video_url', 'text', 'related_qa', 'nlp_end']);
    const video = c.frames.find((f) => f.video_url)!;
    expect(video.video_url).toBe(`${t.base}/assets-standin/video/product.webm`);
    expect(end.msg_id).not.toBe('u-1');
  });

  it('answers in Chinese for zh and cht', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'message_text', source: 'nlpmsg', text: 'what are your opening hours', data: { msg_id: 'u-2', lang: 'cht' } }));
    await c.next(isCommand('nlp_end'));
    expect(c.frames.find((f) => f.msg_type === 'tts')!.text).toBe('我們每天早上十點到晚上九點營業。');
    expect(t.medias.get(roomId)!.spoken[0]!.lang).toBe('zh');
  });

  it('gives every reply its own msg_id', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'say_hello', data: { lang: 'en' } }));
    const first = await c.next(isCommand('nlp_end'));
    const from = c.frames.length;
    c.send(frame(roomId, { type: 'message_text', source: 'nlpmsg', text: 'goodbye', data: { msg_id: 'u-3' } }));
    const second = await c.next(isCommand('nlp_end'), 3_000, from);
    expect(second.msg_id).not.toBe(first.msg_id);
  });
});

describe('voice turns', () => {
  const partial = (roomId: string, text: string, msgId = 'v-1') =>
    frame(roomId, { type: 'message_text', source: 'asrcallback', text, end_point: false, data: { msg_id: msgId, lang: 'en' } });
  const sentence = (roomId: string, source: 'nlpmsg' | 'asrcallback', text: string, msgId = 'v-1') =>
    frame(roomId, { type: 'message_text', source, text, ...(source === 'asrcallback' ? { end_point: true } : {}), data: { msg_id: msgId, lang: 'en' } });

  it(`answers the first wording with asr_running (once), and ends the turn with asr_end and its last wording once no new wording came for ${ASR_END_QUIET_MS} ms`, async () => {
    const { c, roomId } = await joined();
    c.send(partial(roomId, 'where'));
    c.send(partial(roomId, 'where is'));
    await new Promise((r) => setTimeout(r, ASR_END_QUIET_MS / 2));
    const lastAt = Date.now();
    c.send(partial(roomId, 'where is the nearest store'));
    const end = await c.next(isCommand('asr_end'));
    expect(Date.now() - lastAt).toBeGreaterThanOrEqual(ASR_END_QUIET_MS - 20);
    expect(end).toEqual({ msg_type: 'command', command: 'asr_end', msg_id: 'v-1', text: 'where is the nearest store' });
    expect(c.frames.filter(isCommand('asr_running'))).toEqual([{ msg_type: 'command', command: 'asr_running', msg_id: 'v-1' }]);
  });

  it('after asr_end: the nlpmsg is echoed and answered, the end_point closes the turn, and nothing asks for a second asr_end', async () => {
    const { c, roomId } = await joined();
    c.send(partial(roomId, 'what are your opening hours'));
    await c.next(isCommand('asr_end'));
    c.send(partial(roomId, 'what are your opening hours please'));
    c.send(sentence(roomId, 'nlpmsg', 'what are your opening hours'));
    c.send(sentence(roomId, 'asrcallback', 'what are your opening hours'));
    expect(await c.next((f) => f.msg_type === 'asr')).toEqual({ msg_type: 'asr', msg_id: 'v-1', text: 'what are your opening hours' });
    await c.next(isCommand('nlp_end'));
    expect(c.frames.filter(isCommand('asr_end'))).toHaveLength(1);
    expect(c.frames.filter((f) => f.msg_type === 'error')).toEqual([]);
  });

  it('an nlpmsg before the words have rested (a client that stopped waiting) ends the turn with no asr_end after it', async () => {
    const { c, roomId } = await joined();
    c.send(partial(roomId, 'tell me about the discount', 'v-2'));
    c.send(sentence(roomId, 'nlpmsg', 'tell me about the discount', 'v-2'));
    const echo = await c.next((f) => f.msg_type === 'asr');
    await new Promise((r) => setTimeout(r, ASR_END_QUIET_MS * 2));
    expect(echo.msg_id).toBe('v-2');
    expect(c.frames.filter(isCommand('asr_end'))).toEqual([]);
  });
});

describe('break', () => {
  it('stops the avatar at once and ends the reply with interrupted: true', async () => {
    await t.close();
    t = await startTestStandin({ media: { speechMs: 5_000 } });
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'say_hello', data: { lang: 'en' } }));
    const first = await c.next((f) => f.msg_type === 'tts');
    const media = t.medias.get(roomId)!;
    const stopsBefore = media.stopCount;
    c.send(frame(roomId, { type: 'break' }));
    const end = await c.next(isCommand('nlp_end'));
    expect(end).toEqual({ msg_type: 'command', command: 'nlp_end', msg_id: first.msg_id, interrupted: true });
    expect(media.stopCount).toBeGreaterThan(stopsBefore);
    // A ping's pong comes after anything the cut reply could still send (frames keep their order,
    // and the ping is read after the break's work is done): no second sentence of it.
    const sent = c.frames.length;
    c.send({ type: 'ping' });
    await c.next((f) => f.msg_type === 'pong', 3_000, sent);
    expect(c.frames.filter((f) => f.msg_id === first.msg_id && f.msg_type === 'tts')).toHaveLength(1);
  });

  it('a newer message cuts the reply in progress short', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'say_hello', data: { lang: 'en' } }));
    const first = await c.next((f) => f.msg_type === 'tts');
    c.send(frame(roomId, { type: 'message_text', source: 'nlpmsg', text: 'goodbye', data: { msg_id: 'u-9' } }));
    const ended = await c.next((f) => f.command === 'nlp_end' && f.msg_id === first.msg_id);
    expect(ended.interrupted).toBe(true);
    await c.next((f) => f.msg_type === 'tts' && f.text === 'Thank you for visiting.');
  });
});

describe('robustness', () => {
  it('answers malformed frames with an error and keeps the socket open', async () => {
    const { c, roomId } = await joined();
    c.send('{oops');
    expect((await c.next((f) => f.msg_type === 'error')).text).toBe('not valid JSON');
    c.send(frame(roomId, { type: 'nonsense' }));
    await c.next((f) => f.text === 'unknown type: nonsense');
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await c.next((f) => f.text === 'binary frames are not accepted: send JSON text frames');
    c.send(frame(roomId, { type: 'message_text', source: 'nlpmsg', text: 'hello', data: { msg_id: 'u-5' } }));
    await c.next((f) => f.msg_type === 'asr');
    expect(c.closed).toBeNull();
  });

  it('closes a frame larger than the limit with 1009', async () => {
    const { c } = await joined();
    c.send('x'.repeat(600 * 1024));
    expect((await c.waitClose()).code).toBe(1009);
  });

  it('closes on close_webrtc and frees the room', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'close_webrtc' }));
    expect((await c.waitClose()).code).toBe(1000);
    await expect.poll(() => t.standin.rooms.get(roomId)!.clients.size).toBe(0);
  });

  it('stops speaking and forgets a socket that vanishes mid-reply', async () => {
    const { c, roomId } = await joined();
    const media = t.medias.get(roomId)!;
    c.send(frame(roomId, { type: 'say_hello', data: { lang: 'en' } }));
    await c.next((f) => f.msg_type === 'tts');
    const stops = media.stopCount;
    c.close();
    await expect.poll(() => media.stopCount).toBeGreaterThan(stops);
    await expect.poll(() => t.standin.rooms.get(roomId)!.clients.size).toBe(0);
  });

  it('closes the sockets of a room that is stopped', async () => {
    const { c, roomId } = await joined();
    await fetch(`${t.base}/stop_live`, { method: 'POST', body: JSON.stringify({ room_id: roomId, device_id: 'H5test' }) });
    expect(await c.waitClose()).toEqual({ code: 1000, reason: 'stop_live' });
  });

  it('answers a ping with pong at once, before and after joining, and records neither in the event log (server/README.md, Its signaling)', async () => {
    const early = await SignalingClient.connect(t.wsUrl);
    clients.push(early);
    early.send({ type: 'ping' });
    expect(await early.next((f) => f.msg_type === 'pong')).toEqual({ msg_type: 'pong' });
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'ping' }));
    await c.next((f) => f.msg_type === 'pong');
    const signaling = listEvents().filter((e) => e.channel === 'signaling');
    expect(signaling.map((e) => (e.body as Frame).type ?? (e.body as Frame).command)).toEqual(['offer_2', 'asr_ready']);
  });

  it('records every frame in and out', async () => {
    const { c, roomId } = await joined();
    c.send(frame(roomId, { type: 'break' }));
    await expect.poll(() => listEvents().filter((e) => e.channel === 'signaling').length).toBe(3);
    const signaling = listEvents().filter((e) => e.channel === 'signaling');
    expect(signaling.map((e) => [e.dir, (e.body as Frame).type ?? (e.body as Frame).command])).toEqual([
      ['in', 'offer_2'],
      ['out', 'asr_ready'],
      ['in', 'break'],
    ]);
  });
});
