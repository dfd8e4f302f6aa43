/**
 * Connection limits and the idle timeout. Clients of different addresses are sockets bound
 * to different loopback addresses (127.0.0.2, 127.0.0.3, ...), which the server tells apart
 * as it would two phones; no forwarding header is involved.
 */
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { clearEvents, listEvents } from '../events.ts';
import { makeBinaryFrame, makeTextFrame } from './frames.ts';
import type { Recognizer } from './recognizer.ts';
import { AUDIO_PACE } from './session.ts';
import { ensureFixtures, fixturePcm, silence, startSpeechServer, tone, type RunningSpeech } from './testing.ts';
import type { SpeechServiceOptions } from './index.ts';
import { makeWav } from './wav.ts';

const PATH = '/speech/recognition/conversation/cognitiveservices/v1';
const RID = 'AAAABBBBCCCCDDDDEEEEFFFF00001111';

const scripted: Recognizer = {
  busy: false,
  ready: async () => null,
  decode: async () => ({ text: 'where is the nearest store', source: 'grammar' }),
  close: async () => {},
};

type Attempt = { ws: WebSocket; status: 'open' } | { status: number };

/** Opens a recognition socket from `from`; resolves open, or with the refusal's HTTP status. */
function attempt(port: number, from: string): Promise<Attempt> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${PATH}?language=en-US&Ocp-Apim-Subscription-Key=demo-speech-key`, { localAddress: from });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, status: 'open' }));
    ws.once('unexpected-response', (req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      req.destroy();
    });
    ws.once('error', (err) => reject(err));
  });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string; at: number }> {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() })));
}

/** speech.config and one short turn; resolves with the paths of what came back, up to turn.end. */
async function oneTurn(ws: WebSocket): Promise<string[]> {
  const paths: string[] = [];
  const done = new Promise<string[]>((resolve) =>
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const path = /Path: *([^\r\n]+)/i.exec(data.toString())?.[1] ?? '';
      paths.push(path);
      if (path === 'turn.end') resolve(paths);
    }),
  );
  ws.send(makeTextFrame('speech.config', RID, '{}'));
  ws.send(makeBinaryFrame('audio', RID, makeWav(Buffer.alloc(0))));
  ws.send(makeBinaryFrame('audio', RID, Buffer.alloc(0)));
  return done;
}

describe('speech connection limits', () => {
  let speech: RunningSpeech | undefined;
  const open: WebSocket[] = [];

  async function start(opts: Partial<SpeechServiceOptions> = {}): Promise<number> {
    speech = await startSpeechServer({ recognizer: scripted, ...opts });
    return speech.port;
  }

  async function tryFrom(port: number, from: string): Promise<Attempt> {
    const a = await attempt(port, from);
    if (a.status === 'open') open.push(a.ws);
    return a;
  }

  afterEach(async () => {
    for (const ws of open.splice(0)) ws.terminate();
    await speech?.close();
    speech = undefined;
  });

  it('64 silent connections from one address leave the next visitor, from another address, served', async () => {
    const port = await start();
    const results = [];
    for (let i = 0; i < 64; i++) results.push((await tryFrom(port, '127.0.0.2')).status);
    // Refused beyond the per-address cap, with a status that says why.
    expect(results.filter((s) => s === 'open')).toHaveLength(16);
    expect(results.filter((s) => s === 429)).toHaveLength(48);
    const visitor = await tryFrom(port, '127.0.0.3');
    if (visitor.status !== 'open') throw new Error(`the visitor was refused with ${visitor.status}`);
    expect(await oneTurn(visitor.ws)).toContain('turn.end');
  });

  it('refuses with 503 beyond the total, across addresses, and takes connections again once one closes', async () => {
    const port = await start({ maxConnections: 3, maxConnectionsPerAddress: 2 });
    expect((await tryFrom(port, '127.0.0.2')).status).toBe('open');
    expect((await tryFrom(port, '127.0.0.2')).status).toBe('open');
    expect((await tryFrom(port, '127.0.0.2')).status).toBe(429);
    const third = await tryFrom(port, '127.0.0.3');
    expect((await tryFrom(port, '127.0.0.4')).status).toBe(503);
    if (third.status !== 'open') throw new Error(`refused with ${third.status}`);
    const gone = closed(third.ws);
    third.ws.close();
    await gone;
    await expect.poll(async () => (await tryFrom(port, '127.0.0.4')).status, { timeout: 3000 }).toBe('open');
  });

  it('closes a connection with no messages either way after the idle timeout, normally (1000)', async () => {
    const port = await start({ idleTimeoutMs: 400 });
    const silent = await tryFrom(port, '127.0.0.2');
    const talking = await tryFrom(port, '127.0.0.2');
    if (silent.status !== 'open' || talking.status !== 'open') throw new Error('refused');
    const opened = Date.now();
    const silentClosed = closed(silent.ws);
    let talkingClosed = false;
    talking.ws.once('close', () => (talkingClosed = true));
    talking.ws.send(makeTextFrame('speech.config', RID, '{}'));
    talking.ws.send(makeBinaryFrame('audio', RID, makeWav(Buffer.alloc(0))));
    const feeding = setInterval(() => talking.ws.send(makeBinaryFrame('audio', RID, silence(100))), 100);
    try {
      const { code, reason, at } = await silentClosed;
      expect(code).toBe(1000);
      expect(reason).toMatch(/idle/);
      expect(at - opened).toBeGreaterThanOrEqual(350);
      expect(at - opened).toBeLessThan(3000);
      // Audio every 100 ms keeps the other one open well past the timeout.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(talkingClosed).toBe(false);
    } finally {
      clearInterval(feeding);
    }
  });
});

describe('the Speech SDK after an idle close', () => {
  it('reconnects by itself when audio comes again, and recognizes it', async () => {
    ensureFixtures();
    clearEvents();
    const speech = await startSpeechServer({ idleTimeoutMs: 500 });
    const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${speech.port}`), 'demo-speech-key');
    config.speechRecognitionLanguage = 'en-US';
    const push = sdk.AudioInputStream.createPushStream();
    const r = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
    const recognized: string[] = [];
    const canceled: string[] = [];
    r.recognized = (_s, e) => recognized.push(e.result.text);
    r.canceled = (_s, e) => canceled.push(sdk.CancellationReason[e.reason]);
    const stopped = new Promise<void>((resolve) => (r.sessionStopped = () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => r.startContinuousRecognitionAsync(resolve, (e) => reject(new Error(e))));
      // Nothing to send: the service closes the connection once it has been idle.
      const idleClosed = () => listEvents().some((e) => e.channel === 'speech' && (e.body as { reason?: string }).reason === 'idle timeout');
      await expect.poll(idleClosed, { timeout: 10_000 }).toBe(true);
      const pcm = Buffer.concat([fixturePcm('q-opening-hours.wav'), silence(1000)]);
      push.write(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength) as ArrayBuffer);
      push.close();
      await stopped;
      expect(recognized).toEqual(['What are your opening hours?']);
      expect(canceled).toEqual(['EndOfStream']);
      const paths = listEvents()
        .filter((e) => e.channel === 'speech')
        .map((e) => e.body as { path: string; reason?: string });
      // Opened, closed for idleness, opened again by the SDK (which reopens while it is
      // recognizing, so a silent stream may be closed and reopened more than once).
      const idleClose = paths.findIndex((b) => b.path === 'connection.close' && b.reason === 'idle timeout');
      const opens = paths.flatMap((b, i) => (b.path === 'connection' ? [i] : []));
      expect(opens.length).toBeGreaterThanOrEqual(2);
      expect(idleClose).toBeGreaterThan(opens[0] ?? Infinity);
      expect(idleClose).toBeLessThan(opens[1] ?? -1);
    } finally {
      await new Promise<void>((done) => r.stopContinuousRecognitionAsync(done, () => done()));
      r.close();
      await speech.close();
    }
  }, 20_000);
});

describe('one connection\'s audio pace and decode queue', () => {
  let speech: RunningSpeech | undefined;
  afterEach(async () => {
    await speech?.close();
    speech = undefined;
  });

  /** Noise bursts the endpointer takes for utterances: 200 ms of tone, 200 ms of silence, `n` times. */
  const bursts = (n: number) => Buffer.concat(Array.from({ length: n }, () => [tone(200), silence(200)]).flat());

  it('closes a connection sending audio past its burst faster than real time (1008), and takes the same audio at the pace', async () => {
    speech = await startSpeechServer({ recognizer: scripted });
    const url = `ws://127.0.0.1:${speech.port}${PATH}?language=en-US&Ocp-Apim-Subscription-Key=demo-speech-key`;
    const flood = new WebSocket(url);
    await new Promise((resolve) => flood.once('open', resolve));
    const gone = closed(flood);
    flood.send(makeTextFrame('speech.config', RID, '{}'));
    flood.send(makeBinaryFrame('audio', RID, makeWav(Buffer.alloc(0))));
    // 31 s of audio at once: past the 20 s burst.
    flood.send(makeBinaryFrame('audio', RID, silence(31_000)));
    const { code, reason } = await gone;
    expect(code).toBe(1008);
    expect(reason).toMatch(/faster than 3x real time/);
    // The SDK's own way: 5 s at once, then the rest at twice real time; a 20 s burst takes it.
    const sdkLike = new WebSocket(url);
    await new Promise((resolve) => sdkLike.once('open', resolve));
    const paths = oneTurn(sdkLike);
    sdkLike.send(makeBinaryFrame('audio', 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', makeWav(silence(19_000))));
    sdkLike.send(makeBinaryFrame('audio', 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', Buffer.alloc(0)));
    expect(await paths).toContain('turn.end');
    sdkLike.terminate();
  });

  it(`decodes at most ${AUDIO_PACE.maxPendingDecodes} of one connection's utterances at once; the rest are NoMatch, never decoded`, async () => {
    let running = 0;
    let most = 0;
    const calls: string[] = [];
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const slow: Recognizer = {
      busy: false,
      ready: async () => null,
      async decode(_pcm, mode, _signal, key) {
        if (mode === 'partial') return { text: '', source: 'none' };
        calls.push(key ?? '');
        most = Math.max(most, ++running);
        await gate;
        running--;
        return { text: 'where is the nearest store', source: 'grammar' };
      },
      close: async () => {},
    };
    clearEvents();
    speech = await startSpeechServer({ recognizer: slow });
    const ws = new WebSocket(`ws://127.0.0.1:${speech.port}${PATH}?language=en-US&segmentationSilenceTimeoutMs=100&Ocp-Apim-Subscription-Key=demo-speech-key`);
    await new Promise((resolve) => ws.once('open', resolve));
    const statuses: string[] = [];
    const ended = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const text = data.toString();
        const path = /Path: *([^\r\n]+)/i.exec(text)?.[1];
        if (path === 'speech.phrase') statuses.push(/"RecognitionStatus":"(\w+)"/.exec(text)?.[1] ?? '');
        if (path === 'turn.end') resolve();
      }),
    );
    ws.send(makeTextFrame('speech.config', RID, '{}'));
    ws.send(makeBinaryFrame('audio', RID, makeWav(bursts(12))));
    // The queue is full while the four wait: the other eight utterances are refused a place.
    const skipped = () => listEvents().some((e) => (e.body as { path?: string }).path === 'decode.skipped');
    await expect.poll(skipped, { timeout: 5_000 }).toBe(true);
    expect(most).toBe(AUDIO_PACE.maxPendingDecodes);
    letGo();
    ws.send(makeBinaryFrame('audio', RID, Buffer.alloc(0)));
    await ended;
    // Phrases keep their order: the four decoded, then eight NoMatch that cost no decode.
    expect(statuses.slice(0, 12)).toEqual([...Array(4).fill('Success'), ...Array(8).fill('NoMatch')]);
    expect(calls).toHaveLength(AUDIO_PACE.maxPendingDecodes);
    ws.terminate();
  });
});
