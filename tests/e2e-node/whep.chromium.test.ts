/**
 * Real media, end to end: headless Chromium pulls the room's stream over WHEP from a tiny HTTP
 * server around the media pipeline, decodes the avatar's H.264 video (the default profile,
 * 540x960) and hears its Opus speech.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from '@playwright/test';
import { createMediaPipeline, WhepOfferError, type MediaPipeline } from '../../server/media/index.ts';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--autoplay-policy=no-user-gesture-required',
];

const PAGE = `<!doctype html><meta charset="utf-8"><title>whep</title>
<video id="v" autoplay muted playsinline width="360" height="640"></video><audio id="a" autoplay></audio>`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

interface PageStats {
  state: string;
  framesDecoded: number;
  frameWidth: number;
  codec: string;
  totalAudioEnergy: number;
  audioLevel: number;
}

const readStats = (page: Page): Promise<PageStats> =>
  page.evaluate(async () => {
    const pc = (window as unknown as { pc: RTCPeerConnection }).pc;
    const out = { state: pc.connectionState, framesDecoded: 0, frameWidth: 0, codec: '', totalAudioEnergy: 0, audioLevel: 0 };
    const report = await pc.getStats();
    report.forEach((s: Record<string, unknown>) => {
      if (s.type !== 'inbound-rtp') return;
      if (s.kind === 'video') {
        out.framesDecoded = Number(s.framesDecoded ?? 0);
        out.frameWidth = Number(s.frameWidth ?? 0);
        out.codec = String((report as unknown as Map<string, { mimeType?: string }>).get(String(s.codecId))?.mimeType ?? '');
      } else if (s.kind === 'audio') {
        out.totalAudioEnergy = Number(s.totalAudioEnergy ?? 0);
        out.audioLevel = Number(s.audioLevel ?? 0);
      }
    });
    return out;
  });

/** Dark pixels around the avatar's mouth: many when it is open, a thin lip line when closed. */
const mouthDarkness = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const video = document.getElementById('v') as HTMLVideoElement;
    const canvas = document.createElement('canvas');
    canvas.width = 360;
    canvas.height = 640;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx || video.videoWidth === 0) return -1;
    ctx.drawImage(video, 0, 0, 360, 640);
    const { data } = ctx.getImageData(155, 315, 50, 40);
    let dark = 0;
    for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) + (data[i + 1] ?? 255) + (data[i + 2] ?? 255) < 360) dark++;
    return dark;
  });

/** The first value `probe` gives that is `done`; fails, naming `what` and the last value, when none comes within `ms`. */
async function waitFor<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const until = Date.now() + ms;
  let value = await probe();
  while (!done(value)) {
    if (Date.now() >= until) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 200));
    value = await probe();
  }
  return value;
}

describe('WHEP playback in headless Chromium', () => {
  let pipeline: MediaPipeline;
  let server: Server;
  let browser: Browser;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    pipeline = createMediaPipeline({ roomId: 'e2e-whep' });
    server = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
        return;
      }
      readBody(req)
        .then((offer) => pipeline.answerWhep(offer))
        .then(({ answerSdp }) => res.writeHead(201, { 'content-type': 'application/sdp' }).end(answerSdp))
        .catch((err: unknown) => res.writeHead(err instanceof WhepOfferError ? 400 : 500).end(String(err)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage();
    await page.goto(origin);
    await pipeline.ready;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await pipeline?.close();
  });

  it('rejects a garbage offer with 400', async () => {
    const status = await page.evaluate(async () => (await fetch('/whep', { method: 'POST', body: 'hello' })).status);
    expect(status).toBe(400);
  });

  it('connects, decodes the avatar video and hears the avatar speak', async () => {
    const connected = new Promise<string>((resolve) => pipeline.once('peer-connected', resolve));
    await page.evaluate(async () => {
      const pc = new RTCPeerConnection();
      (window as unknown as { pc: RTCPeerConnection }).pc = pc;
      pc.addTransceiver('video', { direction: 'recvonly' });
      pc.addTransceiver('audio', { direction: 'recvonly' });
      pc.ontrack = (e) => {
        const el = document.getElementById(e.track.kind === 'video' ? 'v' : 'a') as HTMLMediaElement;
        el.srcObject = new MediaStream([e.track]);
        void el.play().catch(() => undefined);
      };
      await pc.setLocalDescription(await pc.createOffer());
      // WHEP without trickle: the offer carries every candidate.
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
      });
      const res = await fetch('/whep', { method: 'POST', headers: { 'content-type': 'application/sdp' }, body: pc.localDescription?.sdp ?? '' });
      if (res.status !== 201) throw new Error(`WHEP answered ${res.status}: ${await res.text()}`);
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
    });
    const peerId = await connected;
    expect(pipeline.peerCount()).toBe(1);

    // Frames can be decoded a task before the page hears of the connected state (a loaded
    // machine), and a report can count a decoded frame before it gives the frame's size
    // (once: framesDecoded above 0, frameWidth absent): wait for all three, and fail on any.
    const first = await waitFor('a decoded frame of known size on a connected peer', () => readStats(page), (s) => s.framesDecoded > 0 && s.frameWidth > 0 && s.state === 'connected', 10_000);
    expect(first.frameWidth).toBe(540);
    expect(first.codec).toBe('video/H264');
    const idleMouth = await waitFor('a frame of the idle avatar drawn', () => mouthDarkness(page), (d) => d >= 0, 5000);

    const before = await readStats(page);
    const speech = await pipeline.speak('Hello! Our flagship store is at one Harbour Road, and it is open every day.', 'en');
    expect(speech.durationMs).toBeGreaterThan(2000);
    // Watched until each is seen, not for a set time: a loaded machine decodes and draws late. The
    // open mouth shows far more dark pixels than the closed smile; polled often enough (every
    // 70 ms) to see it open during a sentence of more than 2 s.
    let maxMouth = idleMouth;
    let during = before;
    const seen = () => during.framesDecoded > before.framesDecoded + 15 && during.totalAudioEnergy > before.totalAudioEnergy && maxMouth > idleMouth + 150;
    const until = Date.now() + 30_000;
    while (!seen() && Date.now() < until) {
      maxMouth = Math.max(maxMouth, await mouthDarkness(page));
      during = await readStats(page);
      await new Promise((r) => setTimeout(r, 70));
    }
    expect(during.framesDecoded).toBeGreaterThan(before.framesDecoded + 15);
    expect(during.totalAudioEnergy).toBeGreaterThan(before.totalAudioEnergy);
    expect(maxMouth).toBeGreaterThan(idleMouth + 150);
    expect(pipeline.stats().sendBytes).toBeGreaterThan(0);

    const closed = new Promise<string>((resolve) => pipeline.once('peer-closed', resolve));
    pipeline.dropPeers();
    expect(await closed).toBe(peerId);
    expect(pipeline.peerCount()).toBe(0);
  });
});
