/**
 * Test helpers for the stand-in: a fake media pipeline (no ffmpeg, no WebRTC),
 * a stand-in started on port 0 with it, and a signaling client that waits for
 * frames. Used by the tests beside the HTTP, signaling and control code.
 */
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createStandin, type Standin, type StandinOptions } from '../app.ts';
import type { MediaPipeline, SpeechHandle } from '../rooms.ts';

export class FakeWhepOfferError extends Error {
  override name = 'WhepOfferError';
}

export class FakeWhepCodecError extends FakeWhepOfferError {
  override name = 'WhepCodecError';
}

export const FAKE_OFFER = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 102\r\na=rtpmap:102 H264/90000\r\n';

export class FakeMedia extends EventEmitter implements MediaPipeline {
  readonly ready: Promise<void>;
  readonly spoken: { text: string; lang: 'en' | 'zh' }[] = [];
  stopCount = 0;
  dropCount = 0;
  silenceCount = 0;
  closed = false;
  private readyDone = false;
  private publishing = false;
  /** Peers answered under the whep-no-media fault. */
  readonly silentPeers: string[] = [];
  private readonly answered = new Set<string>();
  private resolveReady!: () => void;
  private readonly connected = new Set<string>();
  private nextPeer = 1;
  private speech: { resolve: (r: 'done' | 'interrupted') => void; timer: NodeJS.Timeout } | null = null;

  constructor(private readonly opts: { speechMs?: number; autoConnect?: boolean } = {}) {
    super();
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
  }

  markReady(): void {
    this.readyDone = true;
    this.resolveReady();
  }
  /** Publishing has started but no media has come out yet. */
  markPublishing(): void {
    this.publishing = true;
  }
  isActive(): boolean {
    return (this.readyDone || this.publishing) && !this.closed;
  }
  async answerWhep(offerSdp: string, opts: { silent?: boolean } = {}): Promise<{ answerSdp: string; peerId: string }> {
    if (!/^m=/m.test(offerSdp)) throw new FakeWhepOfferError('the offer has no media sections (m= lines)');
    if (!/^a=rtpmap:\d+ H264\//m.test(offerSdp)) throw new FakeWhepCodecError('the offer has no video section offering H.264');
    const peerId = `peer-${this.nextPeer++}`;
    this.answered.add(peerId);
    if (opts.silent) this.silentPeers.push(peerId);
    if (this.opts.autoConnect !== false) setImmediate(() => this.connectPeer(peerId));
    return { answerSdp: `v=0\r\ns=fake-answer ${peerId}\r\n`, peerId };
  }
  connectPeer(peerId: string): void {
    if (this.closed) return;
    this.connected.add(peerId);
    this.emit('peer-connected', peerId);
  }
  closePeer(peerId: string): boolean {
    if (this.connected.delete(peerId)) this.emit('peer-closed', peerId);
    return this.answered.delete(peerId);
  }
  async speak(text: string, lang: 'en' | 'zh'): Promise<SpeechHandle> {
    if (this.closed) throw new Error('media closed');
    this.finishSpeech('interrupted');
    this.spoken.push({ text, lang });
    const durationMs = this.opts.speechMs ?? 20;
    const finished = new Promise<'done' | 'interrupted'>((resolve) => {
      this.speech = { resolve, timer: setTimeout(() => this.finishSpeech('done'), durationMs) };
    });
    return { durationMs, finished };
  }
  stopSpeaking(): void {
    this.stopCount += 1;
    this.finishSpeech('interrupted');
  }
  dropPeers(): void {
    this.dropCount += 1;
    for (const peer of [...this.connected]) this.closePeer(peer);
  }
  silencePeers(): void {
    this.silenceCount += 1;
    for (const peer of [...this.connected]) this.closePeer(peer);
  }
  peerCount(): number {
    return this.connected.size;
  }
  stats() {
    return { sendBytes: 123_456, frames: 42, kbps: 480.4, width: 540, height: 960, codec: 'h264' as const };
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.dropPeers();
    this.finishSpeech('interrupted');
    this.closed = true;
  }
  private finishSpeech(result: 'done' | 'interrupted'): void {
    if (!this.speech) return;
    clearTimeout(this.speech.timer);
    this.speech.resolve(result);
    this.speech = null;
  }
}

export interface TestStandin {
  standin: Standin;
  base: string;
  wsUrl: string;
  /** The fake media of every room, by room id. */
  medias: Map<string, FakeMedia>;
  close(): Promise<void>;
}

export async function startTestStandin(
  opts: Partial<StandinOptions> & { media?: { speechMs?: number; autoConnect?: boolean; ready?: boolean } } = {},
): Promise<TestStandin> {
  const medias = new Map<string, FakeMedia>();
  const { media, ...rest } = opts;
  const standin = await createStandin({
    env: 'test',
    publicDir: null,
    speech: null,
    prepareAssets: async () => {},
    createMedia: (roomId) => {
      const fake = new FakeMedia(media);
      if (media?.ready !== false) fake.markReady();
      medias.set(roomId, fake);
      return fake;
    },
    faultDelayMs: 50,
    // Every test's rooms come from 127.0.0.1: the per-address share is tested where it is named.
    maxRoomsPerAddress: 64,
    slowStartMs: 300,
    lateStartMs: 300,
    ...rest,
  });
  await new Promise<void>((resolve) => standin.server.listen(0, '127.0.0.1', resolve));
  const { port } = standin.server.address() as AddressInfo;
  return { standin, base: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/ws/signaling`, medias, close: () => standin.close() };
}

export async function postJson(base: string, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export async function startRoom(base: string, uid = 'demo', deviceId = 'H5test'): Promise<string> {
  const { json } = await postJson(base, '/start_live', { app_id: 'standin-demo', uid, device_id: deviceId });
  if (json.status !== 'success') throw new Error(`start_live failed: ${JSON.stringify(json)}`);
  return json.room_id as string;
}

export type Frame = Record<string, unknown>;

/** A signaling client that keeps every frame and waits for the ones a test expects. */
export class SignalingClient {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static async connect(url: string): Promise<SignalingClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new SignalingClient(ws);
  }

  send(frame: Frame | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first frame from index `from` on that matches. */
  async next(match: (f: Frame) => boolean, timeoutMs = 3_000, from = 0): Promise<Frame> {
    return this.until(() => this.frames.slice(from).find(match), timeoutMs, 'frame');
  }

  async waitClose(timeoutMs = 3_000): Promise<{ code: number; reason: string }> {
    return this.until(() => this.closed ?? undefined, timeoutMs, 'close');
  }

  close(): void {
    this.ws.terminate();
  }

  private async until<T>(get: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = get();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for a ${what}; frames so far: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

export const isCommand = (command: string) => (f: Frame) => f.msg_type === 'command' && f.command === command;
