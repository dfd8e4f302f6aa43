/**
 * The wire protocol as a raw WebSocket client sees it, with a scripted recognizer so these
 * tests are about framing, ordering, settings and robustness rather than pocketsphinx.
 */
import { Duplex } from 'node:stream';
import type http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { clearEvents, listEvents } from '../events.ts';
import { makeBinaryFrame, makeTextFrame, parseTextFrame, type TextFrame } from './frames.ts';
import type { DecodeMode, DecodeResult, Recognizer } from './recognizer.ts';
import { silence, startSpeechServer, tone, type RunningSpeech } from './testing.ts';
import { makeWav } from './wav.ts';

const PATH = '/speech/recognition/conversation/cognitiveservices/v1';
const RID = 'AAAABBBBCCCCDDDDEEEEFFFF00001111';

/** Answers every final decode with `text`; partials with its first word. Records aborts. */
class FakeRecognizer implements Recognizer {
  busy = false;
  aborted = 0;
  calls: DecodeMode[] = [];
  /** Partial decodes take this long instead of delayMs when set; 'never': they end only when aborted. */
  partialDelayMs: number | 'never' | null = null;
  constructor(
    public text = 'where is the nearest store',
    public delayMs = 0,
  ) {}
  async ready() {
    return null;
  }
  decode(_pcm: Int16Array, mode: DecodeMode, signal: AbortSignal): Promise<DecodeResult> {
    this.calls.push(mode);
    return new Promise((resolve, reject) => {
      const ms = mode === 'partial' ? (this.partialDelayMs ?? this.delayMs) : this.delayMs;
      const timer = ms === 'never' ? undefined : setTimeout(() => resolve({ text: mode === 'final' ? this.text : (this.text.split(' ')[0] ?? ''), source: 'grammar' }), ms);
      signal.addEventListener('abort', () => {
        this.aborted++;
        clearTimeout(timer);
        reject(signal.reason as Error);
      });
    });
  }
  async close() {}
}

interface Client {
  ws: WebSocket;
  frames: TextFrame[];
  closed: Promise<{ code: number; reason: string }>;
  waitFor(path: string, count?: number): Promise<TextFrame[]>;
}

async function connect(port: number, query = 'language=en-US&format=simple', path = PATH): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}?${query}&Ocp-Apim-Subscription-Key=demo-speech-key`);
  const frames: TextFrame[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data, isBinary) => {
    if (!isBinary) frames.push(parseTextFrame(data.toString()));
    waiters.forEach((w) => w());
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const waitFor = (p: string, count = 1) =>
    new Promise<TextFrame[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${count}x ${p}; got ${frames.map((f) => f.path).join(',')}`)), 10_000);
      const check = () => {
        const hits = frames.filter((f) => f.path === p);
        if (hits.length >= count) {
          clearTimeout(timer);
          resolve(hits);
        }
      };
      waiters.push(check);
      check();
    });
  return { ws, frames, closed, waitFor };
}

function sendConfig(ws: WebSocket, context: object = {}): void {
  ws.send(makeTextFrame('speech.config', RID, JSON.stringify({ context: { system: { name: 'SpeechSDK' } }, recognition: 'conversation' })));
  ws.send(makeTextFrame('speech.context', RID, JSON.stringify(context)));
}

function sendAudio(ws: WebSocket, ...pcm: Buffer[]): void {
  sendTurn(ws, RID, ...pcm);
}

function sendTurn(ws: WebSocket, requestId: string, ...pcm: Buffer[]): void {
  ws.send(makeBinaryFrame('audio', requestId, makeWav(Buffer.alloc(0)), { 'Content-Type': 'audio/x-wav' }));
  const all = Buffer.concat(pcm);
  for (let at = 0; at < all.length; at += 3200) ws.send(makeBinaryFrame('audio', requestId, all.subarray(at, at + 3200)));
  ws.send(makeBinaryFrame('audio', requestId, Buffer.alloc(0)));
}

/** A turn's audio in 100 ms chunks, `msPerChunk` apart: a microphone rather than a file. */
async function streamTurn(ws: WebSocket, pcm: Buffer, msPerChunk: number, end = true): Promise<void> {
  ws.send(makeBinaryFrame('audio', RID, makeWav(Buffer.alloc(0)), { 'Content-Type': 'audio/x-wav' }));
  for (let at = 0; at < pcm.length; at += 3200) {
    ws.send(makeBinaryFrame('audio', RID, pcm.subarray(at, at + 3200)));
    await new Promise((resolve) => setTimeout(resolve, msPerChunk));
  }
  if (end) ws.send(makeBinaryFrame('audio', RID, Buffer.alloc(0)));
}

function body(frame: TextFrame | undefined): Record<string, unknown> {
  return JSON.parse(frame?.body ?? 'null') as Record<string, unknown>;
}

describe('speech service protocol', () => {
  let speech: RunningSpeech;
  const fake = new FakeRecognizer();

  beforeAll(async () => {
    speech = await startSpeechServer({ recognizer: fake, maxPayload: 64 * 1024, maxConnections: 40, maxConnectionsPerAddress: 40 });
  });
  afterAll(async () => {
    await speech?.close();
  });
  afterEach(() => {
    fake.text = 'where is the nearest store';
    fake.delayMs = 0;
    fake.partialDelayMs = null;
    fake.calls = [];
  });

  it('answers a turn in the order the SDK expects, echoing the request id', async () => {
    clearEvents();
    const c = await connect(speech.port);
    sendConfig(c.ws);
    sendAudio(c.ws, silence(500), tone(1500), silence(700));
    await c.waitFor('turn.end');
    // Partial hypotheses depend on timing; the final one always comes right before the phrase.
    const paths = c.frames.map((f) => f.path);
    expect(paths.filter((p) => p !== 'speech.hypothesis')).toEqual(['turn.start', 'speech.startDetected', 'speech.endDetected', 'speech.phrase', 'speech.phrase', 'turn.end']);
    expect(paths.indexOf('speech.hypothesis')).toBeGreaterThan(paths.indexOf('speech.startDetected'));
    expect(paths.lastIndexOf('speech.hypothesis')).toBe(paths.indexOf('speech.phrase') - 1);
    expect(paths[paths.indexOf('speech.phrase') - 1]).toBe('speech.hypothesis');
    expect(body(c.frames[paths.indexOf('speech.phrase') - 1])).toEqual({ Text: 'where is the nearest store', Offset: 5_000_000, Duration: 15_000_000 });
    expect(c.frames.every((f) => f.requestId === RID)).toBe(true);
    const phrases = c.frames.filter((f) => f.path === 'speech.phrase');
    expect(body(phrases[0])).toEqual({ RecognitionStatus: 'Success', DisplayText: 'Where is the nearest store?', Offset: 5_000_000, Duration: 15_000_000 });
    expect(body(phrases[1])).toMatchObject({ RecognitionStatus: 'EndOfDictation' });
    expect(body(c.frames.find((f) => f.path === 'speech.startDetected'))).toEqual({ Offset: 5_000_000 });
    expect(body(c.frames.find((f) => f.path === 'speech.endDetected'))).toEqual({ Offset: 20_000_000 });
    c.ws.close();
    // Text messages both ways are recorded; audio only as a per-turn summary.
    const speechEvents = listEvents().filter((e) => e.channel === 'speech');
    const recorded = speechEvents.map((e) => `${e.dir}:${(e.body as { path: string }).path}`);
    expect(recorded).toEqual(expect.arrayContaining(['in:connection', 'in:speech.config', 'in:speech.context', 'in:audio', 'out:turn.start', 'out:speech.phrase', 'out:turn.end']));
    const audio = speechEvents.find((e) => (e.body as { path: string }).path === 'audio')?.body;
    expect(audio).toMatchObject({ requestId: RID, frames: 29, bytes: 86400 });
    expect(JSON.stringify(speechEvents)).not.toContain('demo-speech-key');
  });

  it.each([
    [500, 2],
    [1000, 1],
  ])('honours a segmentation silence of %i ms from speech.context', async (ms, phrases) => {
    const c = await connect(speech.port);
    sendConfig(c.ws, { phraseDetection: { mode: 'Conversation', conversation: { segmentation: { mode: 'Custom', segmentationSilenceTimeoutMs: ms } } } });
    sendAudio(c.ws, tone(600), silence(750), tone(600), silence(1200));
    await c.waitFor('turn.end');
    expect(c.frames.filter((f) => f.path === 'speech.phrase' && body(f)['RecognitionStatus'] === 'Success')).toHaveLength(phrases);
    c.ws.close();
  });

  it('takes the segmentation silence from the URL when speech.context has none', async () => {
    const c = await connect(speech.port, 'language=en-US&segmentationSilenceTimeoutMs=1000');
    sendConfig(c.ws);
    sendAudio(c.ws, tone(600), silence(750), tone(600), silence(1200));
    await c.waitFor('turn.end');
    expect(c.frames.filter((f) => f.path === 'speech.startDetected')).toHaveLength(1);
    c.ws.close();
  });

  it('runs a second turn on the same connection under its own request id', async () => {
    const second = '11112222333344445555666677778888';
    const c = await connect(speech.port);
    sendConfig(c.ws);
    sendAudio(c.ws, tone(600), silence(600));
    await c.waitFor('turn.end');
    c.ws.send(makeTextFrame('speech.context', second, '{}'));
    sendTurn(c.ws, second, tone(600), silence(600));
    await c.waitFor('turn.end', 2);
    const firstEnd = c.frames.findIndex((f) => f.path === 'turn.end');
    expect(c.frames.slice(0, firstEnd + 1).every((f) => f.requestId === RID)).toBe(true);
    const rest = c.frames.slice(firstEnd + 1);
    expect(rest.map((f) => f.path)).toContain('speech.phrase');
    expect(rest.every((f) => f.requestId === second)).toBe(true);
    c.ws.close();
  });

  it('answers NoMatch when nothing is recognized, and adds NBest in detailed format', async () => {
    fake.text = '';
    const c = await connect(speech.port, 'language=en-US&format=detailed');
    sendConfig(c.ws);
    sendAudio(c.ws, tone(600), silence(600));
    await c.waitFor('turn.end');
    expect(body(c.frames.find((f) => f.path === 'speech.phrase'))).toMatchObject({ RecognitionStatus: 'NoMatch' });
    fake.text = 'show me the new products';
    sendAudio(c.ws, tone(600), silence(600));
    await c.waitFor('turn.end', 2);
    const success = c.frames.find((f) => f.path === 'speech.phrase' && body(f)['RecognitionStatus'] === 'Success');
    expect(body(success)).toMatchObject({ NBest: [{ Lexical: 'show me the new products', Display: 'Show me the new products.' }] });
    c.ws.close();
  });

  it('ends an interactive turn after one phrase', async () => {
    const c = await connect(speech.port, 'language=en-US', '/speech/recognition/interactive/cognitiveservices/v1');
    sendConfig(c.ws);
    sendAudio(c.ws, tone(600), silence(600), tone(600), silence(600));
    await c.waitFor('turn.end');
    await new Promise((r) => setTimeout(r, 100));
    expect(c.frames.map((f) => f.path)).toEqual(['turn.start', 'speech.startDetected', 'speech.endDetected', 'speech.hypothesis', 'speech.phrase', 'turn.end']);
    c.ws.close();
  });

  it('reports initial silence in an interactive turn', async () => {
    const c = await connect(speech.port, 'language=en-US&initialSilenceTimeoutMs=1000', '/speech/recognition/interactive/cognitiveservices/v1');
    sendConfig(c.ws);
    sendAudio(c.ws, silence(1500));
    await c.waitFor('turn.end');
    expect(body(c.frames.find((f) => f.path === 'speech.phrase'))).toMatchObject({ RecognitionStatus: 'InitialSilenceTimeout' });
    c.ws.close();
  });

  it.each([
    ['audio before speech.config', (ws: WebSocket) => ws.send(makeBinaryFrame('audio', RID, makeWav(Buffer.alloc(0)))), 1002, /audio before speech.config/],
    ['a text frame without headers', (ws: WebSocket) => ws.send('hello'), 1007, /malformed message/],
    ['a binary frame of one byte', (ws: WebSocket) => ws.send(Buffer.from([7])), 1007, /malformed message/],
    ['a body that is not JSON', (ws: WebSocket) => ws.send(makeTextFrame('speech.config', RID, '{nope')), 1007, /not JSON/],
    ['an oversized frame', (ws: WebSocket) => ws.send(Buffer.alloc(100 * 1024)), 1009, /.*/],
  ])('closes the socket with a clear code on %s', async (_what, act, code, reason) => {
    const c = await connect(speech.port);
    act(c.ws);
    const closed = await c.closed;
    expect(closed.code).toBe(code);
    expect(closed.reason).toMatch(reason);
  });

  it('closes with 1007 on audio it cannot recognize', async () => {
    const c = await connect(speech.port);
    sendConfig(c.ws);
    c.ws.send(makeBinaryFrame('audio', RID, makeWav(Buffer.alloc(0), { formatTag: 1, channels: 1, sampleRate: 48000, bitsPerSample: 16 })));
    expect(await c.closed).toEqual({ code: 1007, reason: 'unsupported audio: 48000 Hz (only 16000 Hz is supported)' });
  });

  it('kills the decode when the socket vanishes mid-utterance', async () => {
    fake.delayMs = 5000;
    const before = fake.aborted;
    const c = await connect(speech.port);
    sendConfig(c.ws);
    sendAudio(c.ws, tone(600), silence(600));
    await c.waitFor('speech.endDetected');
    c.ws.terminate();
    await expect.poll(() => fake.aborted, { timeout: 3000 }).toBeGreaterThan(before);
  });

  it('sends a phrase as soon as its final decode is done, killing a partial decode still running', async () => {
    // A partial decode that never ends by itself: a phrase that waited for it would never come.
    fake.partialDelayMs = 'never';
    const aborted = fake.aborted;
    const c = await connect(speech.port);
    sendConfig(c.ws);
    // Over a second of speech at twice real time: a partial decode starts while it is spoken.
    await streamTurn(c.ws, Buffer.concat([silence(300), tone(1500)]), 50, false);
    expect(fake.calls).toEqual(['partial']);
    for (let at = 0, quiet = silence(700); at < quiet.length; at += 3200) c.ws.send(makeBinaryFrame('audio', RID, quiet.subarray(at, at + 3200)));
    const [phrase] = await c.waitFor('speech.phrase');
    expect(body(phrase)).toMatchObject({ RecognitionStatus: 'Success' });
    expect(fake.aborted).toBe(aborted + 1);
    c.ws.close();
  });

  it('starts no partial decode in the silence that ends an utterance', async () => {
    const c = await connect(speech.port, 'language=en-US&segmentationSilenceTimeoutMs=1500');
    sendConfig(c.ws);
    await streamTurn(c.ws, Buffer.concat([tone(700), silence(1600)]), 25);
    await c.waitFor('turn.end');
    expect(fake.calls).toEqual(['final']);
    c.ws.close();
  });

  it('serves many connections at once', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => connect(speech.port)));
    for (const c of clients) {
      sendConfig(c.ws);
      sendAudio(c.ws, tone(400), silence(600));
    }
    const phrases = await Promise.all(clients.map((c) => c.waitFor('turn.end').then(() => c.frames.filter((f) => f.path === 'speech.phrase').length)));
    expect(phrases).toEqual(Array(20).fill(2));
    clients.forEach((c) => c.ws.close());
  });

  it('refuses a wrong or missing key with 401 before the upgrade', async () => {
    for (const key of ['', '&Ocp-Apim-Subscription-Key=wrong']) {
      const ws = new WebSocket(`ws://127.0.0.1:${speech.port}${PATH}?language=en-US${key}`);
      ws.on('error', () => {}); // the refused handshake also surfaces as an error
      const status = await new Promise<number>((resolve) =>
        ws.on('unexpected-response', (req, res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        }),
      );
      expect(status).toBe(401);
    }
  });

  it('accepts the key as a header, as the SDK sends it from Node', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${speech.port}${PATH}`, { headers: { 'Ocp-Apim-Subscription-Key': 'demo-speech-key' } });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.close();
  });

  it('leaves paths that are not speech recognition to the app', () => {
    const socket = new Duplex({ read() {}, write(_c, _e, cb) { cb(); } });
    const req = { url: '/ws/signaling?x=1', headers: {} } as http.IncomingMessage;
    expect(speech.service.handleUpgrade(req, socket, Buffer.alloc(0))).toBe(false);
    expect(socket.destroyed).toBe(false);
  });
});

describe('speech service shutdown', () => {
  it('closes open sockets with 1001 and refuses new ones', async () => {
    const speech = await startSpeechServer({ recognizer: new FakeRecognizer() });
    const c = await connect(speech.port);
    const service = speech.service;
    await service.close();
    expect((await c.closed).code).toBe(1001);
    const socket = new Duplex({ read() {}, write(_c, _e, cb) { cb(); } });
    const req = { url: `${PATH}?Ocp-Apim-Subscription-Key=demo-speech-key`, headers: {}, socket: { remoteAddress: '127.0.0.1' } } as unknown as http.IncomingMessage;
    expect(service.handleUpgrade(req, socket, Buffer.alloc(0))).toBe(true);
    await speech.close().catch(() => {});
  });
});
