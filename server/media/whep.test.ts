import { afterEach, describe, expect, it } from 'vitest';
import { RTCPeerConnection } from 'werift';
import { listEvents } from '../events.ts';
import { WhepOfferError, checkWhepOffer } from './offer.ts';
import { WhepPeers } from './whep.ts';

/** A viewer made with werift itself, offering recvonly VP8 + Opus on loopback like Chromium does. */
async function makeViewer(): Promise<{ pc: RTCPeerConnection; offer: string }> {
  const pc = new RTCPeerConnection({ iceUseIpv4: false, iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'] });
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((s) => s === 'complete');
  return { pc, offer: pc.localDescription?.sdp ?? '' };
}

function rtpPacket(seq: number): Buffer {
  const p = Buffer.alloc(12 + 20, 0xab);
  p[0] = 0x80;
  p[1] = 96;
  p.writeUInt16BE(seq, 2);
  p.writeUInt32BE(seq * 3000, 4);
  p.writeUInt32BE(1234, 8);
  p[12] = 0x10; // VP8 payload descriptor: start of partition
  return p;
}

const MINIMAL_OFFER = ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=ice-ufrag:abcd', 'a=ice-pwd:abcdefghijklmnopqrstuvwx', 'a=fingerprint:sha-256 00'];

describe('checkWhepOffer', () => {
  it.each([
    ['', /empty/],
    ['hello world', /not SDP/],
    ['v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\n', /no media sections/],
    [[...MINIMAL_OFFER, 'm=video 9 UDP/TLS/RTP/SAVPF 98', 'a=rtpmap:98 VP9/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2'].join('\r\n'), /VP8/],
    [[...MINIMAL_OFFER, 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 VP8/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 0', 'a=rtpmap:0 PCMU/8000'].join('\r\n'), /Opus/],
    [[...MINIMAL_OFFER.slice(0, 4), 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 VP8/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2'].join('\r\n'), /ice-ufrag/],
    ['v=0\n' + 'a'.repeat(70_000), /larger than/],
  ])('rejects %#', (sdp, message) => {
    expect(() => checkWhepOffer(sdp)).toThrow(WhepOfferError);
    expect(() => checkWhepOffer(sdp)).toThrow(message);
  });

  it('rejects a value that is not a string', () => {
    expect(() => checkWhepOffer({ sdp: 'v=0' })).toThrow(WhepOfferError);
  });

  it('accepts a real offer', async () => {
    const viewer = await makeViewer();
    expect(() => checkWhepOffer(viewer.offer)).not.toThrow();
    await viewer.pc.close();
  });
});

describe('WhepPeers', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0)) await f();
  });

  it('answers with loopback candidates, connects, forwards RTP and closes', async () => {
    const peers = new WhepPeers('room-whep');
    cleanup.push(() => peers.closeAll());
    const viewer = await makeViewer();
    cleanup.push(() => viewer.pc.close());
    const connected = new Promise<string>((resolve) => peers.once('peer-connected', resolve));

    const { answerSdp, peerId } = await peers.answer(viewer.offer);
    const candidates = answerSdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:'));
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.every((l) => l.includes(' 127.0.0.1 ') && l.includes(' typ host'))).toBe(true);
    expect(answerSdp).toMatch(/a=sendonly/);
    expect(answerSdp).toMatch(/VP8\/90000/);
    expect(answerSdp).toMatch(/opus\/48000/i);

    const received = new Promise<number>((resolve) => {
      viewer.pc.onTrack.subscribe((track) => {
        if (track.kind === 'video') track.onReceiveRtp.once((rtp) => resolve(rtp.payload.length));
      });
    });
    await viewer.pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
    expect(await connected).toBe(peerId);
    expect(listEvents().some((e) => e.channel === 'whep' && e.dir === 'out' && (e.body as { state?: string }).state === 'connected')).toBe(true);

    let seq = 1;
    const pump = setInterval(() => peers.send('video', rtpPacket(seq++)), 20);
    cleanup.push(() => clearInterval(pump));
    expect(await received).toBe(20);

    const closed = new Promise<string>((resolve) => peers.once('peer-closed', resolve));
    peers.close(peerId);
    expect(await closed).toBe(peerId);
    expect(peers.count()).toBe(0);
    expect(peers.send('video', rtpPacket(seq++))).toBe(0);
  });

  it('makes room for a newcomer by closing the oldest peer when full', async () => {
    const peers = new WhepPeers('room-full', 1);
    cleanup.push(() => peers.closeAll());
    const a = await makeViewer();
    const b = await makeViewer();
    cleanup.push(() => a.pc.close(), () => b.pc.close());
    const first = await peers.answer(a.offer);
    const closed = new Promise<string>((resolve) => peers.once('peer-closed', resolve));
    const second = await peers.answer(b.offer);
    expect(await closed).toBe(first.peerId);
    expect(second.peerId).not.toBe(first.peerId);
    expect(peers.count()).toBe(1);
  });

  it('turns an offer werift cannot use into a WhepOfferError without keeping a peer', async () => {
    const peers = new WhepPeers('room-bad');
    const bad = [...MINIMAL_OFFER, 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 VP8/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2'].join('\r\n');
    await expect(peers.answer(bad)).rejects.toThrow(WhepOfferError);
    expect(peers.count()).toBe(0);
  });
});
