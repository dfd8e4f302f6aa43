/**
 * The stand-in's WHEP as SRS 5 does it, over HTTP with the real media pipeline: H.264
 * constrained baseline with a keyframe every second of video in an ICE-lite answer, at most 4 peers
 * per room however many offers come at once, a connected viewer never evicted, and a DELETE of
 * the Location that frees its peer at once.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection, useH264, useOPUS, type RtpPacket } from 'werift';
import { createStandin, type Standin } from '../../server/app.ts';
import { listEvents } from '../../server/events.ts';

let standin: Standin;
let base: string;
let roomId: string;
const viewers: RTCPeerConnection[] = [];
const savedProfile = process.env.STANDIN_VIDEO_PROFILE;

beforeAll(async () => {
  // The small profile: what is checked here does not depend on the size, and the machine is small.
  process.env.STANDIN_VIDEO_PROFILE = 'small';
  standin = await createStandin({ env: 'test', publicDir: null, speech: null });
  await new Promise<void>((resolve) => standin.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(standin.server.address() as AddressInfo).port}`;
  await standin.ready;
  const res = await fetch(`${base}/start_live`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ app_id: 'srs-whep', uid: 'demo', device_id: 'H5srswhep' }),
  });
  roomId = ((await res.json()) as { room_id: string }).room_id;
}, 120_000);

afterAll(async () => {
  for (const pc of viewers) await pc.close();
  await standin.close();
  if (savedProfile === undefined) delete process.env.STANDIN_VIDEO_PROFILE;
  else process.env.STANDIN_VIDEO_PROFILE = savedProfile;
});

async function viewer(): Promise<{ pc: RTCPeerConnection; offer: string }> {
  const pc = new RTCPeerConnection({
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    codecs: { video: [useH264()], audio: [useOPUS()] },
  });
  viewers.push(pc);
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((s) => s === 'complete');
  return { pc, offer: pc.localDescription!.sdp };
}

const offerTo = (sdp: string): Promise<Response> =>
  fetch(`${base}/rtc/v1/whep/?app=live&stream=${roomId}`, { method: 'POST', headers: { 'content-type': 'application/sdp' }, body: sdp });

/** The H.264 NAL unit types that start in an RTP payload (single NAL, STAP-A, FU-A start). */
function nalTypes(payload: Buffer): number[] {
  const type = (payload[0] ?? 0) & 0x1f;
  if (type === 28) return (payload[1] ?? 0) & 0x80 ? [(payload[1] ?? 0) & 0x1f] : [];
  if (type !== 24) return [type];
  const types: number[] = [];
  for (let at = 1; at + 2 < payload.length; at += 2 + payload.readUInt16BE(at)) types.push((payload[at + 2] ?? 0) & 0x1f);
  return types;
}

/** The SPS's profile_idc and constraint flags, wherever the SPS sits in the payload. */
function spsProfile(payload: Buffer): [number, number] | null {
  const type = (payload[0] ?? 0) & 0x1f;
  if (type === 7) return [payload[1] ?? 0, payload[2] ?? 0];
  if (type !== 24) return null;
  for (let at = 1; at + 2 < payload.length; at += 2 + payload.readUInt16BE(at)) {
    if (((payload[at + 2] ?? 0) & 0x1f) === 7) return [payload[at + 3] ?? 0, payload[at + 4] ?? 0];
  }
  return null;
}

describe('WHEP as SRS answers it', () => {
  it('answers ICE-lite with H.264 constrained baseline and sends a keyframe every second of video, SPS in band', async () => {
    const { pc, offer } = await viewer();
    // Keyframes by their RTP timestamps (the video's own 90 kHz clock), not by when they arrive:
    // how fast this machine encodes and forwards them is not what is tested.
    const keyframes: number[] = [];
    let profile: [number, number] | null = null;
    pc.onTrack.subscribe((track) => {
      if (track.kind !== 'video') return;
      track.onReceiveRtp.subscribe((rtp: RtpPacket) => {
        // Several IDR packets per keyframe share its timestamp.
        if (nalTypes(rtp.payload).includes(5) && keyframes.at(-1) !== rtp.header.timestamp) keyframes.push(rtp.header.timestamp);
        profile ??= spsProfile(rtp.payload);
      });
    });
    const res = await offerTo(offer);
    expect(res.status).toBe(201);
    const answer = await res.text();
    expect(answer).toMatch(/^a=ice-lite\r?$/m);
    expect(answer).toMatch(/^a=fmtp:\d+ .*profile-level-id=42e01f/m);
    await pc.setRemoteDescription({ type: 'answer', sdp: answer });
    if (pc.connectionState !== 'connected') await pc.connectionStateChange.watch((s) => s === 'connected');
    await expect.poll(() => keyframes.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    // One a second (server/media/encoders.ts: a GOP of the profile's frame rate): 90,000 ticks apart.
    const gaps = keyframes.slice(1, 4).map((t, i) => (t - keyframes[i]! + 2 ** 32) % 2 ** 32);
    expect(gaps).toEqual([90_000, 90_000, 90_000]);
    // profile_idc 66 (baseline) with constraint_set1: constrained baseline, what browsers decode everywhere.
    expect(profile).not.toBeNull();
    expect(profile![0]).toBe(66);
    expect(profile![1] & 0x40).toBe(0x40);
    await pc.close();
    expect((await fetch(base + res.headers.get('location')!, { method: 'DELETE' })).status).toBe(200);
  }, 60_000);

  it('answers exactly 4 of 50 concurrent offers 201 and the other 46 503 with a clear text; DELETE frees a place at once', async () => {
    const media = standin.rooms.get(roomId)!.media;
    expect(media.peerCount()).toBe(0);
    const { offer } = await viewer();
    const answers = await Promise.all(Array.from({ length: 50 }, () => offerTo(offer)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(4);
    expect(statuses.filter((s) => s === 503)).toHaveLength(46);
    const refused = answers.find((r) => r.status === 503)!;
    expect(await refused.text()).toMatch(/already has 4 viewers \(counting those still connecting\)/);
    expect(media.peerCount()).toBe(4);

    const location = answers.find((r) => r.status === 201)!.headers.get('location')!;
    const deleted = await fetch(base + location, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(media.peerCount()).toBe(3);
    expect(listEvents().some((e) => e.channel === 'whep' && (e.body as { method?: string }).method === 'DELETE')).toBe(true);
    // A second DELETE frees nothing more and is 200, as in SRS.
    expect((await fetch(base + location, { method: 'DELETE' })).status).toBe(200);
    expect(media.peerCount()).toBe(3);
    expect((await offerTo(offer)).status).toBe(201);
    expect((await offerTo(offer)).status).toBe(503);
    for (const r of answers) if (r.status === 201) await fetch(base + r.headers.get('location')!, { method: 'DELETE' });
  }, 60_000);
});
