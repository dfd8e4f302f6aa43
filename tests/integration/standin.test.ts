/**
 * The stand-in end to end at the Node level, with the real media pipeline:
 * the spec's call sequence (userinfo → route → start_live → stream poll →
 * signaling ∥ WHEP), a werift viewer receiving the avatar's RTP, spoken
 * replies over signaling, a break, and stop_live.
 */
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection, useH264, useOPUS } from 'werift';
import { createStandin, type Standin } from '../../server/app.ts';
import { isCommand, SignalingClient, type Frame } from '../../server/http/testkit.ts';

let standin: Standin;
let base: string;
const cleanup: (() => unknown)[] = [];

beforeAll(async () => {
  standin = await createStandin({ env: 'test', publicDir: null });
  await new Promise<void>((resolve) => standin.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(standin.server.address() as AddressInfo).port}`;
  await standin.ready;
}, 120_000);
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
  await standin.close();
});

async function post(path: string, body: unknown, form = false): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method: 'POST',
    ...(form ? { body: new URLSearchParams(body as Record<string, string>) } : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

function ffmpegChildren(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), 'ffmpeg']).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe('a whole session against the stand-in', () => {
  it('goes from account to live avatar, talks, is interrupted, and stops', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const photo = await fetch(`${base}/assets-standin/avatar.webp`);
    expect(photo.headers.get('content-type')).toBe('image/webp');

    const info = await post('/ue/userinfo', { uid: 'demo', version: '1.0.0' }, true);
    expect((info.data as Record<string, unknown>).AsrList).toBeDefined();
    const route = (await post('/get/route', { uid: 'demo', serverName: 'standin' })).data as { websockLink: string; srsLink: string };
    const start = await post('/start_live', { app_id: 'standin-demo', uid: 'demo', device_id: 'H5integration' });
    expect(start.status).toBe('success');
    const roomId = start.room_id as string;

    // Poll like the client: every 400 ms until the room's stream publishes.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const streams = (await (await fetch(`${route.srsLink}/api/v1/streams/?count=100`)).json()) as { streams: { name: string; publish: { active: boolean } }[] };
      if (streams.streams.find((s) => s.name === roomId)?.publish.active) break;
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 400));
    }

    const signaling = await SignalingClient.connect(route.websockLink);
    cleanup.push(() => signaling.close());
    signaling.send({ type: 'offer_2', room_id: roomId, app_id: 'standin-demo', deviceId: 'H5integration' });
    await signaling.next(isCommand('asr_ready'));

    // H.264, as a browser offers it: the stand-in, like SRS, refuses an offer without it.
    const pc = new RTCPeerConnection({
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ['127.0.0.1'],
      codecs: { video: [useH264()], audio: [useOPUS()] },
    });
    cleanup.push(() => pc.close());
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    const audioSizes: number[] = [];
    let videoPackets = 0;
    pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        if (track.kind === 'video') videoPackets += 1;
        else audioSizes.push(rtp.payload.length);
      });
    });
    await pc.setLocalDescription(await pc.createOffer());
    if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((s) => s === 'complete');
    const whep = await fetch(`${route.srsLink}/rtc/v1/whep/?app=live&stream=${roomId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: pc.localDescription!.sdp,
    });
    expect(whep.status).toBe(201);
    expect(whep.headers.get('location')).toMatch(/session=/);
    await pc.setRemoteDescription({ type: 'answer', sdp: await whep.text() });
    if (pc.connectionState !== 'connected') await pc.connectionStateChange.watch((s) => s === 'connected');
    await expect.poll(() => videoPackets, { timeout: 20_000 }).toBeGreaterThan(5);
    expect(standin.rooms.get(roomId)!.isLive()).toBe(true);

    // A short answer, spoken for real: its text arrives while the audio carries speech.
    const quietMax = Math.max(...audioSizes.slice(-20));
    const before = audioSizes.length;
    signaling.send({ type: 'message_text', room_id: roomId, source: 'nlpmsg', text: 'goodbye', data: { msg_id: 'u-1', lang: 'en' } });
    const end = await signaling.next(isCommand('nlp_end'), 20_000);
    const texts = signaling.frames.filter((f: Frame) => f.msg_type === 'tts' && f.msg_id === end.msg_id).map((f) => f.text);
    expect(texts).toEqual(['Thank you for visiting.', 'Have a nice day!']);
    expect(end.interrupted).toBeUndefined();
    // The reply's packets, however late this machine forwards them, are larger than silence's.
    await expect.poll(() => Math.max(...audioSizes.slice(before)), { timeout: 20_000 }).toBeGreaterThan(quietMax * 2);

    // A break cuts a longer answer short.
    const from = signaling.frames.length;
    signaling.send({ type: 'message_text', room_id: roomId, source: 'nlpmsg', text: 'where is the nearest store', data: { msg_id: 'u-2', lang: 'en' } });
    const first = await signaling.next((f) => f.msg_type === 'tts', 10_000, from);
    signaling.send({ type: 'break', room_id: roomId });
    // The flag decides, not how soon the end comes: an answer spoken to its end has no interrupted.
    const cut = await signaling.next(isCommand('nlp_end'), 20_000, from);
    expect(cut).toMatchObject({ msg_id: first.msg_id, interrupted: true });

    expect(ffmpegChildren().length).toBeGreaterThanOrEqual(2);
    expect(await post('/stop_live', { room_id: roomId, device_id: 'H5integration' })).toEqual({ data: { code: 200002, msg: 'stopped' } });
    expect((await signaling.waitClose()).code).toBe(1000);
    await expect.poll(ffmpegChildren, { timeout: 20_000 }).toEqual([]);
  }, 90_000);
});
