/**
 * One malformed packet or frame cannot stop the stand-in (issue 53): a real stand-in (the
 * child process of the abuse suite) is sent random and malformed frames on its signaling and
 * speech sockets, joined to a room and not, and malformed UDP datagrams on a live WHEP peer's
 * media port, all over loopback and bounded in count. Then it must still answer /healthz and
 * carry a visitor's whole session (media, a question, the avatar's spoken answer).
 *
 * The frames are made from a seeded generator, printed, so a failure can be replayed:
 * FUZZ_SEED=n npx vitest run tests/integration/fuzz.test.ts.
 */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { LANGS } from '../../lang/languages.ts';
import { makeBinaryFrame, makeTextFrame } from '../../server/speech/frames.ts';
import { makeWav } from '../../server/speech/wav.ts';
import { startAbuseStandin, type AbuseStandin } from '../support/abuseStandin.ts';
import { viewerOffer, visitSession } from '../support/visitor.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
/** Frames per socket stay under the signaling burst (40), so the rate limit closes none of them. */
const FRAMES_PER_SOCKET = 30;
const SOCKETS = 12;
const DATAGRAMS = 3_000;

let t: AbuseStandin;
beforeAll(async () => {
  t = await startAbuseStandin();
}, 120_000);
afterAll(() => t?.stop());

/** A small seeded generator (mulberry32). */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  /** A JSON value of any type, nested a little, with the shapes that break careless code. */
  const value = (depth = 0): unknown => {
    const kinds = depth > 2 ? 7 : 9;
    switch (int(kinds)) {
      case 0: return null;
      case 1: return pick([0, -1, 1e308, -0, 2 ** 53 + 1, 3.5]);
      case 2: return pick(['', ...LANGS, 'xx', '__proto__', 'constructor', 'room_x', '💥'.repeat(int(50)), 'a'.repeat(int(5000))]);
      case 3: return next() < 0.5;
      case 4: return bytes(int(20)).toString('latin1');
      case 5: return pick(['toString', 'hasOwnProperty', 'valueOf']);
      case 6: return [];
      case 7: return Array.from({ length: int(4) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(['lang', 'msg_id', 'state', 'text', '__proto__', 'x']), value(depth + 1)]));
    }
  };
  return { next, int, pick, bytes, value };
}

type Gen = ReturnType<typeof generator>;

const TYPES = ['offer_2', 'say_hello', 'message_text', 'break', 'close_webrtc', 'ping', 'play', 'unknown', ''] as const;

/** A signaling frame: a known type with fields of random types, broken JSON, or binary. */
function signalingFrame(g: Gen, roomId: string, deviceId: string): string | Buffer {
  const r = g.next();
  if (r < 0.1) return g.bytes(g.int(200));
  if (r < 0.2) return JSON.stringify(g.value()).slice(0, g.int(40)) + g.pick(['{', '[', '"', '\\u', '']);
  const frame: Record<string, unknown> = { type: g.pick(TYPES) };
  for (const field of ['room_id', 'deviceId', 'source', 'text', 'end_point', 'data']) {
    if (g.next() < 0.6) frame[field] = g.value();
  }
  // Often well-formed enough to get past the parser to the room's handlers.
  if (g.next() < 0.6) frame.room_id = roomId;
  if (g.next() < 0.5) frame.deviceId = deviceId;
  if (frame.type === 'message_text' && g.next() < 0.5) {
    frame.source = g.pick(['nlpmsg', 'asrcallback']);
    frame.text = g.pick(['where is the nearest store', '', '   ', 'x'.repeat(g.int(2000))]);
    frame.data = { msg_id: g.pick([`m-${g.int(9)}`, 7, '']), lang: g.value() };
  }
  if (frame.type === 'play' && g.next() < 0.5) frame.data = { msg_id: `r-${g.int(20)}`, state: g.pick(['start', 'end', 'x']) };
  return JSON.stringify(frame);
}

const PATHS = ['speech.config', 'speech.context', 'telemetry', 'audio', 'x', ''];

/** A speech message: the SDK's frame format with random headers, bodies and audio, or garbage. */
function speechFrame(g: Gen): string | Buffer {
  const rid = g.pick(['A'.repeat(32), 'B'.repeat(32), '', 'not-hex']);
  const r = g.next();
  if (r < 0.15) return g.bytes(g.int(300));
  if (r < 0.25) {
    // A binary frame whose header length says anything.
    const b = g.bytes(g.int(100) + 2);
    b.writeUInt16BE(g.int(65536), 0);
    return b;
  }
  if (r < 0.5) return makeTextFrame(g.pick(PATHS), rid, g.next() < 0.5 ? JSON.stringify(g.value()) : g.bytes(g.int(50)).toString('latin1'));
  if (r < 0.6) return `Path: ${g.pick(PATHS)}\r\nX-RequestId\r\n\r\n{`;
  const wave = makeWav(g.bytes(g.int(4000)));
  // A wave header with its fields broken: format, channels, rate, bits, sizes.
  if (g.next() < 0.5) wave.writeUInt32LE(g.int(2 ** 32), g.pick([4, 16, 20, 22, 24, 28, 32, 34, 40]));
  return makeBinaryFrame(g.pick(['audio', 'audio', 'x']), rid, g.next() < 0.7 ? wave : g.bytes(g.int(4000)));
}

/** A UDP datagram shaped like one of the protocols the media port demultiplexes (RFC 7983), broken. */
function datagram(g: Gen): Buffer {
  const b = g.bytes(g.int(1200) + 1);
  switch (g.int(5)) {
    case 0: // STUN: a binding request or response with random attributes and lengths
      if (b.length < 20) return b;
      b.writeUInt16BE(g.pick([0x0001, 0x0101, 0x0111, 0x0011]), 0);
      b.writeUInt16BE(g.next() < 0.5 ? b.length - 20 : g.int(65536), 2);
      b.writeUInt32BE(0x2112a442, 4);
      return b;
    case 1: // DTLS records
      b[0] = 20 + g.int(44);
      if (b.length > 2) b.writeUInt16BE(g.pick([0xfeff, 0xfefd, 0x0303]), 1);
      return b;
    case 2: // RTP / RTCP
      b[0] = 128 + g.int(64);
      if (b.length > 1) b[1] = g.pick([96, 111, 200, 201, 205, 206, g.int(256)]);
      return b;
    case 3:
      return Buffer.alloc(g.int(4));
    default:
      return b;
  }
}

async function open(url: string, from: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { localAddress: from });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.on('error', () => undefined);
  return ws;
}

/** Sends each of `frames` once the socket has answered or a tick has passed, so that the server reads them all. */
async function sendAll(ws: WebSocket, frames: (string | Buffer)[]): Promise<void> {
  for (const frame of frames) {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(frame);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the stand-in under malformed frames and datagrams', () => {
  it('keeps answering /healthz and carries a whole session after fuzzed signaling, speech and media input', async () => {
    process.stdout.write(`[abuse] fuzz seed ${SEED} (FUZZ_SEED=${SEED} replays it)\n`);
    const g = generator(SEED);
    const base = t.standin.url.replace('http', 'ws');
    const roomId = await t.startRoom('H5fuzz', '127.0.0.12');
    const closes: number[] = [];

    // A live WHEP peer of that room, whose media port gets the datagrams.
    const viewer = await viewerOffer();
    onTestFinished(() => viewer.pc.close());
    const answer = await t.requestFrom('127.0.0.12', 'POST', `/rtc/v1/whep/?app=live&stream=${roomId}`, { body: viewer.sdp, headers: { 'content-type': 'application/sdp' } });
    expect(answer.status).toBe(201);
    await viewer.pc.setRemoteDescription({ type: 'answer', sdp: answer.text });
    if (viewer.pc.connectionState !== 'connected') await viewer.pc.connectionStateChange.watch((state) => state === 'connected');
    const ports = [...answer.text.matchAll(/^a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1 (\d+) typ host/gm)].map((m) => Number(m[1]));
    expect(ports.length).toBeGreaterThan(0);

    const signaling = Array.from({ length: SOCKETS }, async (_, i) => {
      const ws = await open(`${base}/ws/signaling`, '127.0.0.12');
      ws.once('close', (code) => closes.push(code));
      // Half the sockets join the room first, so their frames reach its handlers.
      if (i % 2 === 0) {
        const joined = new Promise((resolve) => ws.once('message', resolve));
        ws.send(JSON.stringify({ type: 'offer_2', room_id: roomId, deviceId: 'H5fuzz' }));
        await joined;
      }
      await sendAll(ws, Array.from({ length: FRAMES_PER_SOCKET }, () => signalingFrame(g, roomId, 'H5fuzz')));
      ws.terminate();
    });
    const speech = Array.from({ length: SOCKETS }, async (_, i) => {
      const query = `language=${g.pick(['en-US', 'zh-CN', 'xx', ''])}&format=${g.pick(['simple', 'detailed', '??'])}&segmentationSilenceTimeoutMs=${g.pick(['100', '-1', 'abc', '99999999'])}&Ocp-Apim-Subscription-Key=demo-speech-key`;
      const ws = await open(`${base}/speech/recognition/${g.pick(['conversation', 'interactive', 'dictation'])}/cognitiveservices/v1?${query}`, `127.0.3.${1 + (i % 8)}`);
      ws.once('close', (code) => closes.push(code));
      if (g.next() < 0.7) ws.send(makeTextFrame('speech.config', 'A'.repeat(32), '{}'));
      await sendAll(ws, Array.from({ length: FRAMES_PER_SOCKET }, () => speechFrame(g)));
      ws.terminate();
    });
    const udp = (async () => {
      const socket = createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
      for (let i = 0; i < DATAGRAMS; i++) {
        await new Promise<void>((resolve) => socket.send(datagram(g), g.pick(ports), '127.0.0.1', () => resolve()));
      }
      socket.close();
    })();
    await Promise.all([...signaling, ...speech, udp]);

    process.stdout.write(`[abuse] fuzz: the fuzzed port's own viewer is ${viewer.pc.connectionState}\n`);
    // Still up, and still serving a visitor from start to spoken answer.
    const health = await fetch(`${t.standin.url}/healthz`);
    expect(health.status).toBe(200);
    expect(() => process.kill(t.standin.pid, 0)).not.toThrow();
    const visitor = await visitSession(t.standin.url, { timeoutMs: 45_000 });
    process.stdout.write(
      `[abuse] fuzz: ${SOCKETS * 2} sockets × ${FRAMES_PER_SOCKET} frames, ${DATAGRAMS} datagrams; close codes ${JSON.stringify(closes.reduce<Record<number, number>>((n, c) => ({ ...n, [c]: (n[c] ?? 0) + 1 }), {}))}; then a visitor answered in ${visitor.answerMs} ms\n`,
    );
    await t.post('/stop_live', JSON.stringify({ room_id: roomId, device_id: 'H5fuzz' }));
  }, 120_000);
});
