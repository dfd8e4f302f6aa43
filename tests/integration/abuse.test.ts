/**
 * The stand-in under hostile or heavy input: each input of issue 21 is sent to
 * a real stand-in (server/main.ts as a child process, real media and speech),
 * and the outcome is asserted while a visitor's session on the same server
 * still goes live and gets an answer (tests/support/visitor.ts).
 *
 * Inputs are sized to prove the bound, not to take minutes: each would grow
 * the stand-in of before this suite by 200 MB or more, and the bound is 100 MB
 * of resident memory at the peak, sampled every 25 ms. Hostile sockets come from
 * other loopback addresses (127.0.0.2 and up) than the visitor's (127.0.0.1),
 * as another client on the network would.
 */
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type WebSocket from 'ws';
import { isCommand, SignalingClient, type Frame } from '../../server/http/testkit.ts';
import { closed, startAbuseStandin, type AbuseStandin } from '../support/abuseStandin.ts';
import { childPids, samplePeak } from '../support/processProbe.ts';
import type { RunningStandin } from '../support/standin.ts';

const MEMORY_BOUND_MB = 100;
// The limits server/README.md states (kept here as numbers, so the suite runs against any stand-in).
/** espeak-ng processes at once: one per core, at least 2. */
const MAX_RUNNING = Math.max(2, availableParallelism());
const SIGNALING_LIMITS = { perAddress: 16, total: 256, joinTimeoutMs: 10_000 };
const ATTACKER = '127.0.0.2';

let t: AbuseStandin;
let standin: RunningStandin;
let wsUrl: string;

beforeAll(async () => {
  t = await startAbuseStandin();
  ({ standin, wsUrl } = t);
}, 120_000);
afterAll(() => t?.stop());

const underInput: AbuseStandin['underInput'] = (name, input) => t.underInput(name, input);
const socketFrom: AbuseStandin['socketFrom'] = (...args) => t.socketFrom(...args);
const post: AbuseStandin['post'] = (...args) => t.post(...args);

describe('1. the event log under large frames and bodies', () => {
  it('1,000 frames of 200 KB on one signaling socket that never joins', async () => {
    const pad = 'x'.repeat(200 * 1024);
    const frame = JSON.stringify({ type: 'say_hello', room_id: 'room_x', data: { lang: 'en', pad } });
    const { growthMb } = await underInput('1,000 frames of 200 KB', async () => {
      const { ws } = await socketFrom(ATTACKER);
      let answered = 0;
      const done = new Promise<void>((resolve) => ws.on('message', () => ++answered === 1_000 && resolve()));
      for (let i = 0; i < 1_000; i++) ws.send(frame);
      await done;
      ws.close();
    });
    expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);
    // The log still answers, promptly, and holds the frames summarised.
    const started = performance.now();
    const res = await fetch(`${standin.url}/__standin/events`);
    const events = (await res.json()) as { channel: string; body: { truncated?: boolean; chars?: number } }[];
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(events.some((e) => e.channel === 'signaling' && e.body.truncated === true && (e.body.chars ?? 0) > 200 * 1024)).toBe(true);
  }, 90_000);

  it('1,000 POSTs of a 16 KB JSON object carrying an array of empty arrays', async () => {
    const body = JSON.stringify({ uid: 'demo', serverName: 'standin', pad: Array.from({ length: 5_400 }, () => []) });
    expect(body.length).toBeGreaterThan(16_000);
    const { growthMb } = await underInput('1,000 POSTs of 16 KB of empty arrays', async () => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < 1_000) {
          next++;
          const res = await post('/get/route', body);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    });
    expect(growthMb).toBeLessThan(MEMORY_BOUND_MB);
    expect((await fetch(`${standin.url}/__standin/events`)).status).toBe(200);
  }, 90_000);
});

describe('2. speech synthesis under a burst of questions', () => {
  it('200 questions at once run at most one espeak-ng per core, and none is left 2 s after a break', async () => {
    const roomId = await t.startRoom('H5burst');
    const attacker = await SignalingClient.connect(wsUrl);
    attacker.send({ type: 'offer_2', room_id: roomId });
    await attacker.next(isCommand('asr_ready'));
    const espeak = samplePeak(() => childPids(standin.pid, 'espeak-ng').length, 10);

    await underInput('200 questions at once', async () => {
      for (let i = 0; i < 200; i++) {
        attacker.send({ type: 'message_text', room_id: roomId, source: 'nlpmsg', text: 'where is the nearest store', data: { msg_id: `q-${i}`, lang: 'en' } });
      }
      await attacker.next((f: Frame) => f.msg_type === 'asr' && f.msg_id === 'q-199', 20_000);
      // The last reply starts speaking: its synthesis has run.
      const last = await attacker.next((f: Frame) => f.msg_type === 'tts', 20_000, attacker.frames.findIndex((f) => f.msg_id === 'q-199'));
      return last;
    });
    const most = espeak.stop();
    process.stdout.write(`[abuse] 200 questions at once: at most ${most} espeak-ng at once (limit ${MAX_RUNNING})\n`);
    expect(most).toBeLessThanOrEqual(MAX_RUNNING);

    // A break and the socket's close end the reply; its synthesis must not outlive them.
    attacker.send({ type: 'message_text', room_id: roomId, source: 'nlpmsg', text: 'tell me about the discount', data: { msg_id: 'q-last', lang: 'en' } });
    await attacker.next((f: Frame) => f.msg_type === 'asr' && f.msg_id === 'q-last', 5_000);
    attacker.send({ type: 'break', room_id: roomId });
    attacker.close();
    const interrupted = performance.now();
    let left = childPids(standin.pid, 'espeak-ng').length;
    while (left > 0 && performance.now() - interrupted < 2_000) {
      await new Promise((r) => setTimeout(r, 20));
      left = childPids(standin.pid, 'espeak-ng').length;
    }
    process.stdout.write(`[abuse] after the break: ${left} espeak-ng left at ${Math.round(performance.now() - interrupted)} ms\n`);
    expect(left).toBe(0);
    await post('/stop_live', JSON.stringify({ room_id: roomId, device_id: 'H5burst' }));
  }, 90_000);
});

describe('3. the control endpoints and upgrades from another origin', () => {
  const evil = { origin: 'http://evil.example' };

  it('refuse another origin with 403 and send no Access-Control-Allow-Origin', async () => {
    const events = await fetch(`${standin.url}/__standin/events`, { headers: evil });
    expect(events.status).toBe(403);
    expect(events.headers.get('access-control-allow-origin')).toBeNull();
    const fetchMeta = await fetch(`${standin.url}/__standin/events`, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(fetchMeta.status).toBe(403);
    const faults = await post('/__standin/faults', JSON.stringify({ faults: ['route-error'] }), { ...evil, 'content-type': 'application/json' });
    expect(faults.status).toBe(403);
    expect((await fetch(`${standin.url}/__standin/faults`)).status).toBe(200);
    expect(((await (await fetch(`${standin.url}/__standin/faults`)).json()) as { faults: string[] }).faults).toEqual([]);
    const preflight = await fetch(`${standin.url}/__standin/faults`, { method: 'OPTIONS', headers: { ...evil, 'access-control-request-method': 'DELETE' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    // Our own pages and local tools still work.
    const own = await fetch(`${standin.url}/__standin/events`, { headers: { origin: standin.url } });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('take a body only as application/json (415): a "simple" text/plain request needs no preflight', async () => {
    const plain = await post('/__standin/strike', JSON.stringify({ faults: ['signaling-drop'] }), { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    const form = await post('/__standin/faults', 'faults=route-error', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(((await (await fetch(`${standin.url}/__standin/faults`)).json()) as { faults: string[] }).faults).toEqual([]);
  });

  it('refuse a WebSocket upgrade from another origin with 403, for signaling and speech, and accept one without Origin', async () => {
    expect((await socketFrom('127.0.0.1', evil)).status).toBe(403);
    const speechPath = '/speech/recognition/interactive/cognitiveservices/v1?language=en-US&Ocp-Apim-Subscription-Key=demo-speech-key';
    const speech = (await socketFrom('127.0.0.1', evil, speechPath)).status;
    expect(speech).toBe(403);
    const native = await socketFrom('127.0.0.1');
    expect(native.status).toBe(101);
    native.ws.close();
    const own = await socketFrom('127.0.0.1', { origin: standin.url });
    expect(own.status).toBe(101);
    own.ws.close();
  });
});

describe('5. signaling connections from one address and in total', () => {
  it(`one address gets at most ${SIGNALING_LIMITS.perAddress} sockets, unjoined ones are closed, and a visitor is still served`, async () => {
    const attempts = SIGNALING_LIMITS.perAddress * 4;
    let sockets: { ws: WebSocket; status: number }[] = [];
    onTestFinished(() => sockets.forEach((r) => r.ws.terminate()));
    const { result } = await underInput(`${attempts} sockets from one address`, async () => {
      sockets = await Promise.all(Array.from({ length: attempts }, () => socketFrom('127.0.0.3')));
      return sockets;
    });
    const open = result.filter((r) => r.status === 101);
    expect(open.length).toBe(SIGNALING_LIMITS.perAddress);
    expect(result.filter((r) => r.status === 429).length).toBe(attempts - SIGNALING_LIMITS.perAddress);
    // They never join a room: each is closed (1008) once the join window has passed, and the address may connect again.
    const codes = await Promise.all(open.map((r) => closed(r.ws)));
    expect(new Set(codes)).toEqual(new Set([1008]));
    // The server counts a socket until its TCP connection is gone, which may come a moment after
    // the client saw the close: the address gets in again within 1 s.
    const since = performance.now();
    let again = await socketFrom('127.0.0.3');
    while (again.status !== 101 && performance.now() - since < 1_000) {
      await new Promise((r) => setTimeout(r, 50));
      again = await socketFrom('127.0.0.3');
    }
    expect(again.status).toBe(101);
    // Gone at once, so that the next test starts with no socket of this one counted.
    again.ws.terminate();
    await closed(again.ws);
  }, SIGNALING_LIMITS.joinTimeoutMs + 60_000);

  it(`the stand-in holds at most ${SIGNALING_LIMITS.total} sockets in all`, async () => {
    // The server counts a socket until its TCP connection is gone, a moment after the client saw
    // it close (see above): the previous tests' last sockets (a visitor's, a probe's) must not
    // take a place here. One CI run counted 255 places for this reason.
    await new Promise((r) => setTimeout(r, 1_000));
    const addresses = Math.ceil(SIGNALING_LIMITS.total / SIGNALING_LIMITS.perAddress) + 1;
    const attempts = Array.from({ length: addresses * SIGNALING_LIMITS.perAddress }, (_, i) => socketFrom(`127.0.1.${1 + (i % addresses)}`));
    const result = await Promise.all(attempts);
    const open = result.filter((r) => r.status === 101);
    try {
      expect(open.length).toBe(SIGNALING_LIMITS.total);
      expect(result.filter((r) => r.status === 503).length).toBe(result.length - SIGNALING_LIMITS.total);
    } finally {
      for (const r of open) r.ws.terminate();
      await Promise.all(open.map((r) => closed(r.ws)));
    }
  }, 60_000);
});

describe('5. rooms held by sockets alone', () => {
  const IDLE_MS = 2_000;
  let short: AbuseStandin;
  beforeAll(async () => {
    short = await startAbuseStandin({ STANDIN_ROOM_IDLE_MS: String(IDLE_MS) });
  }, 120_000);
  afterAll(() => short?.stop());

  it('8 sockets joined to a room, with no peer, do not keep it: it is reclaimed and its sockets closed', async () => {
    const sockets: WebSocket[] = [];
    onTestFinished(() => sockets.forEach((ws) => ws.terminate()));
    const roomId = await short.startRoom('H5hold');
    for (let i = 0; i < 8; i++) {
      const { ws, status } = await short.socketFrom('127.0.0.5');
      expect(status).toBe(101);
      sockets.push(ws);
      const ready = new Promise<unknown>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
      ws.send(JSON.stringify({ type: 'offer_2', room_id: roomId }));
      expect(await ready).toMatchObject({ command: 'asr_ready' });
    }
    // The room is reclaimed IDLE_MS after it was made, its sockets closed with 1000; 5 s more bound the wait.
    const deadline = new Promise<number>((resolve) => setTimeout(() => resolve(-2), IDLE_MS + 5_000));
    const codes = await Promise.all(sockets.map((ws) => Promise.race([closed(ws), deadline])));
    expect(new Set(codes)).toEqual(new Set([1000]));
    const stop = await short.post('/stop_live', JSON.stringify({ room_id: roomId, device_id: 'H5hold' }));
    expect(stop.status).toBe(404);
  }, 60_000);
});

describe('6. smaller: the errors a client sees', () => {
  it('a long room_id is named as too long, not as missing', async () => {
    const c = await SignalingClient.connect(wsUrl);
    c.send({ type: 'offer_2', room_id: 'r'.repeat(300) });
    const error = await c.next((f: Frame) => f.msg_type === 'error');
    expect(error.text).toBe('offer_2: room_id too long (max 200 characters)');
    c.close();
  });
});
