/**
 * The stand-in's two signaling dialects (server/README.md, *Dialects*) against the client's own
 * frame parser: `seed` words every frame within the specification's field list, and the
 * client reads from it the same conversation as from the stand-in's own dialect, less the
 * extensions (suggested questions, `interrupted`, error frames).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseServerFrame, type ServerMessage } from '../../src/features/signaling/protocol.ts';
import { startRoom, startTestStandin, SignalingClient, type Frame, type TestStandin } from '../../server/http/testkit.ts';
import type { Dialect } from '../../server/signaling/dialect.ts';

/** The specification's list of received fields (docs/requirements.md R41), and the msg_types it names. */
const SPEC_FIELDS = new Set(['msg_type', 'text', 'msg_id', 'image_url', 'video_url', 'web_url', 'command']);
const SPEC_TYPES = new Set(['asr', 'tts', 'quit']);

const servers = new Map<Dialect, TestStandin>();
let clients: SignalingClient[] = [];

beforeAll(async () => {
  for (const dialect of ['standin', 'seed'] as const) servers.set(dialect, await startTestStandin({ media: { speechMs: 15 }, signaling: { dialect } }));
});
afterAll(async () => {
  for (const t of servers.values()) await t.close();
});
afterEach(async () => {
  for (const c of clients) c.close();
  clients = [];
  for (const t of servers.values()) await t.standin.rooms.closeAll();
});

/** What the client's parser makes of every frame received, in order. */
function read(frames: Frame[]): ServerMessage[] {
  return frames.flatMap((f) => {
    const parsed = parseServerFrame(JSON.stringify(f));
    if (!parsed.ok) throw new Error(`the client drops ${JSON.stringify(f)}: ${parsed.reason}`);
    return parsed.messages;
  });
}

/**
 * A message as the conversation means it: reply ids renumbered, since each server counts
 * its own, and media URLs without the server's own origin.
 */
function normalise(messages: ServerMessage[], dialect: Dialect): unknown[] {
  const ids = new Map<string, string>();
  const idOf = (id: string) => (id.startsWith('r-') ? (ids.get(id) ?? ids.set(id, `reply-${ids.size + 1}`).get(id)!) : id);
  const base = servers.get(dialect)!.base;
  return messages.map((m) => {
    const json = JSON.stringify('msg_id' in m && m.msg_id !== undefined ? { ...m, msg_id: idOf(m.msg_id) } : m);
    return JSON.parse(json.split(base).join('ORIGIN')) as unknown;
  });
}

/** The stand-in dialect's messages without what only extensions carry. */
function withoutExtensions(messages: ServerMessage[]): ServerMessage[] {
  return messages.flatMap((m): ServerMessage[] => {
    if (m.msg_type === 'error') return [];
    if (m.msg_type === 'tts' && m.related_qa) {
      const { related_qa: _dropped, ...rest } = m;
      return Object.keys(rest).length > 2 ? [rest] : [];
    }
    if (m.msg_type === 'command') {
      const { interrupted: _interrupted, text: _text, ...rest } = m;
      return [rest];
    }
    return [m];
  });
}

/**
 * The same conversation on a server of `dialect`: join, the greeting, a typed question with
 * media, a question cut short by a break, a frame the server refuses. Returns the frames.
 */
async function converse(dialect: Dialect): Promise<Frame[]> {
  const t = servers.get(dialect)!;
  const roomId = await startRoom(t.base);
  const c = await SignalingClient.connect(t.wsUrl);
  clients.push(c);
  const send = (extra: Frame) => c.send({ room_id: roomId, app_id: 'standin-demo', deviceId: 'H5test', ...extra });
  const ended = (n: number) => c.next(() => c.frames.filter((f) => f.command === 'nlp_end').length >= n);
  send({ type: 'offer_2' });
  await c.next((f) => f.command === 'asr_ready');
  send({ type: 'say_hello', data: { lang: 'en' } });
  await ended(1);
  send({ type: 'message_text', source: 'nlpmsg', text: 'show me the new products', data: { msg_id: 'u-1', lang: 'en' } });
  await ended(2);
  const before = c.frames.length;
  send({ type: 'message_text', source: 'nlpmsg', text: 'tell me about the discount', data: { msg_id: 'u-2', lang: 'en' } });
  await c.next((f) => f.msg_type === 'tts' && f.text !== undefined, 3_000, before);
  send({ type: 'break' });
  await ended(3);
  send({ type: 'play', data: { msg_id: 'nope' } });
  // The refusal (stand-in) or its absence (seed) shows once a later frame has been answered.
  send({ type: 'message_text', source: 'asrcallback', text: 'where is', data: { msg_id: 'u-3', lang: 'en' } });
  await c.next((f) => f.command === 'asr_end');
  return c.frames;
}

describe('the seed dialect', () => {
  it('sends only the fields and message types the specification lists', async () => {
    const frames = await converse('seed');
    for (const f of frames) {
      expect(SPEC_TYPES.has(String(f.msg_type)), JSON.stringify(f)).toBe(true);
      for (const key of Object.keys(f)) expect(SPEC_FIELDS.has(key), `${key} in ${JSON.stringify(f)}`).toBe(true);
    }
    // Commands ride on the frame of what they are about; nlp_running on its reply's first part.
    expect(frames.find((f) => f.command === 'asr_ready')).toEqual({ msg_type: 'asr', command: 'asr_ready' });
    const running = frames.filter((f) => f.command === 'nlp_running');
    expect(running.length).toBe(3);
    for (const f of running) expect(f).toMatchObject({ msg_type: 'tts', text: expect.any(String) });
  });

  it('is read by the client as the same conversation as the stand-in dialect, less its extensions', async () => {
    const standin = read(await converse('standin'));
    const seed = read(await converse('seed'));
    expect(standin.some((m) => m.msg_type === 'tts' && m.related_qa)).toBe(true);
    expect(standin.some((m) => m.msg_type === 'command' && m.interrupted)).toBe(true);
    expect(standin.some((m) => m.msg_type === 'error')).toBe(true);
    expect(normalise(seed, 'seed')).toEqual(normalise(withoutExtensions(standin), 'standin'));
  });

  it('answers no ping: a back end without the heartbeat extension', async () => {
    for (const dialect of ['standin', 'seed'] as const) {
      const c = await SignalingClient.connect(servers.get(dialect)!.wsUrl);
      clients.push(c);
      c.send({ type: 'ping' });
      // A refused frame after it is answered in both dialects (an error, or quit for a gone room).
      c.send({ type: 'offer_2', room_id: 'room_gone' });
      await c.next((f) => f.msg_type === 'error' || f.msg_type === 'quit');
      expect(c.frames.some((f) => f.msg_type === 'pong'), dialect).toBe(dialect === 'standin');
    }
  });

  it('answers an offer_2 for a room that is gone with quit, the specification\'s own end', async () => {
    const t = servers.get('seed')!;
    const c = await SignalingClient.connect(t.wsUrl);
    clients.push(c);
    c.send({ type: 'offer_2', room_id: 'room_gone' });
    expect(await c.next((f) => f.msg_type === 'quit')).toEqual({ msg_type: 'quit', text: 'The session has ended.' });
    expect(read(c.frames).map((m) => m.msg_type)).toEqual(['quit']);
  });
});
