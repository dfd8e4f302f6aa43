import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { RTCPeerConnection, useH264, useOPUS, useVP8, type RTCRtpCodecParameters } from 'werift';
import { listEvents } from '../events.ts';
import { WhepBusyError, WhepCodecError, WhepGoneError, WhepOfferError, checkWhepOffer } from './offer.ts';
import { WhepPeers } from './whep.ts';

// werift's codecs as a browser offers them: H.264 42e01f with packetization-mode=1, NACK and PLI.
const H264 = useH264();
const VP8 = useVP8();
const OPUS = useOPUS();

/** A viewer made with werift itself, offering recvonly H.264 and VP8 + Opus on loopback like Chromium does. */
async function makeViewer(video: RTCRtpCodecParameters[] = [VP8, H264]): Promise<{ pc: RTCPeerConnection; offer: string }> {
  const pc = new RTCPeerConnection({
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    codecs: { video, audio: [OPUS] },
  });
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
  p[12] = 0x41; // an H.264 NAL header: a non-IDR slice
  return p;
}

const MINIMAL_OFFER = ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=ice-ufrag:abcd', 'a=ice-pwd:abcdefghijklmnopqrstuvwx', 'a=fingerprint:sha-256 00'];

describe('checkWhepOffer', () => {
  it.each([
    ['', /empty/],
    ['hello world', /not SDP/],
    ['v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\n', /no media sections/],
    [[...MINIMAL_OFFER, 'm=video 9 UDP/TLS/RTP/SAVPF 98', 'a=rtpmap:98 VP9/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2'].join('\r\n'), /H\.264/],
    [[...MINIMAL_OFFER, 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 H264/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 0', 'a=rtpmap:0 PCMU/8000'].join('\r\n'), /Opus/],
    [[...MINIMAL_OFFER.slice(0, 4), 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 H264/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2'].join('\r\n'), /ice-ufrag/],
    ['v=0\n' + 'a'.repeat(140_000), /larger than 131072/],
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

  it('refuses an offer without H.264 as SRS does, with the error the route answers by closing the connection', async () => {
    const viewer = await makeViewer([VP8]);
    expect(() => checkWhepOffer(viewer.offer)).toThrow(WhepCodecError);
    expect(() => checkWhepOffer(viewer.offer)).toThrow('the offer has no video section offering H.264');
    // The Firefox lane's mode: VP8 is what is sent, so VP8 is what is needed.
    expect(() => checkWhepOffer(viewer.offer, 'vp8')).not.toThrow();
    await viewer.pc.close();
  });

  it('accepts an offer of 100 KB (the HTTP body may be up to 128 KB)', async () => {
    const viewer = await makeViewer();
    const padded = viewer.offer.replace(/\r\n$/, '') + '\r\n' + Array.from({ length: 1000 }, (_, i) => `a=x-pad-${i}:${'p'.repeat(90)}`).join('\r\n') + '\r\n';
    expect(Buffer.byteLength(padded)).toBeGreaterThan(100_000);
    expect(() => checkWhepOffer(padded)).not.toThrow();
    await viewer.pc.close();
  });
});

describe('WhepPeers', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0)) await f();
  });

  /** A viewer that takes the answer of `peers` and is connected. */
  async function connectViewer(peers: WhepPeers, opts: { silent?: boolean; beforeConnect?: (viewer: RTCPeerConnection) => void } = {}) {
    const viewer = await makeViewer();
    cleanup.push(() => viewer.pc.close());
    const connected = new Promise<string>((resolve) => peers.once('peer-connected', resolve));
    const answer = await peers.answer(viewer.offer, { silent: opts.silent ?? false });
    opts.beforeConnect?.(viewer.pc);
    await viewer.pc.setRemoteDescription({ type: 'answer', sdp: answer.answerSdp });
    expect(await connected).toBe(answer.peerId);
    return answer;
  }

  it('answers with loopback candidates, connects, forwards RTP and closes', async () => {
    const peers = new WhepPeers('room-whep');
    cleanup.push(() => peers.closeAll());
    let received!: Promise<number>;
    const { answerSdp, peerId } = await connectViewer(peers, {
      beforeConnect: (pc) => {
        received = new Promise<number>((resolve) => {
          pc.onTrack.subscribe((track) => {
            if (track.kind === 'video') track.onReceiveRtp.once((rtp) => resolve(rtp.payload.length));
          });
        });
      },
    });
    const candidates = answerSdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:'));
    expect(candidates.length).toBeGreaterThan(0);
    expect(candidates.every((l) => l.includes(' 127.0.0.1 ') && l.includes(' typ host'))).toBe(true);
    expect(answerSdp).toMatch(/a=sendonly/);
    // SRS's answer: ICE-lite, H.264 constrained baseline with FU-A packetization.
    expect(answerSdp).toMatch(/^a=ice-lite\r?$/m);
    expect(answerSdp).toMatch(/^a=rtpmap:\d+ H264\/90000\r?$/im);
    expect(answerSdp).toMatch(/^a=fmtp:\d+ .*packetization-mode=1/m);
    expect(answerSdp).toMatch(/^a=fmtp:\d+ .*profile-level-id=42e01f/m);
    expect(answerSdp).not.toMatch(/VP8/);
    expect(answerSdp).toMatch(/opus\/48000/i);

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

  it('answers exactly 4 of 50 concurrent offers and refuses the other 46 as busy', async () => {
    const peers = new WhepPeers('room-race');
    cleanup.push(() => peers.closeAll());
    const viewer = await makeViewer();
    cleanup.push(() => viewer.pc.close());
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => peers.answer(viewer.offer)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(46);
    expect(refused.every((r) => r.reason instanceof WhepBusyError)).toBe(true);
    expect(String(refused[0]?.reason)).toMatch(/already has 4 viewers \(counting those still connecting\)/);
    expect(peers.count()).toBe(4);
  });

  it('never evicts a connected viewer for a newcomer, and frees the place once that viewer closes', async () => {
    const peers = new WhepPeers('room-full', 'h264', 1);
    cleanup.push(() => peers.closeAll());
    const first = await connectViewer(peers);
    const b = await makeViewer();
    cleanup.push(() => b.pc.close());
    let closed = 0;
    peers.on('peer-closed', () => closed++);

    await expect(peers.answer(b.offer)).rejects.toBeInstanceOf(WhepBusyError);
    expect(closed).toBe(0);
    expect(peers.count()).toBe(1);

    expect(peers.close(first.peerId)).toBe(true);
    expect(peers.close(first.peerId)).toBe(false);
    await expect(peers.answer(b.offer)).resolves.toMatchObject({ peerId: expect.any(String) });
  });

  it('counts a viewer still connecting against the limit', async () => {
    const peers = new WhepPeers('room-connecting', 'h264', 1);
    cleanup.push(() => peers.closeAll());
    const a = await makeViewer();
    cleanup.push(() => a.pc.close());
    await peers.answer(a.offer); // never connects: the viewer does not take the answer
    await expect(peers.answer(a.offer)).rejects.toBeInstanceOf(WhepBusyError);
  });

  it('records a viewer\'s keyframe request (PLI) as a whep event', async () => {
    const peers = new WhepPeers('room-pli');
    cleanup.push(() => peers.closeAll());
    let viewer!: RTCPeerConnection;
    const { peerId, answerSdp } = await connectViewer(peers, { beforeConnect: (pc) => (viewer = pc) });
    const receiver = viewer.getTransceivers().find((t) => t.kind === 'video')!.receiver;
    // The video section comes first: its ssrc is the first one.
    const ssrc = Number(/^a=ssrc:(\d+) /m.exec(answerSdp)?.[1]);
    const pli = () => listEvents().some((e) => e.channel === 'whep' && (e.body as { peerId?: string; rtcp?: string }).peerId === peerId && (e.body as { rtcp?: string }).rtcp === 'pli');
    await receiver.sendRtcpPLI(ssrc);
    await expect.poll(pli).toBe(true);
  });

  it('sends nothing to a silent peer (201 and no media)', async () => {
    const peers = new WhepPeers('room-silent');
    cleanup.push(() => peers.closeAll());
    await connectViewer(peers, { silent: true });
    expect(peers.send('video', rtpPacket(1))).toBe(0);
  });

  // Issue 29: SRS's API kick tells the browser nothing. A closed socket would (ICMP "port
  // unreachable" reaches the browser's next ICE check, and it fails the connection at once).
  it('silences every peer as SRS\'s kick does: nothing more is forwarded or answered, and the socket stays bound', async () => {
    const peers = new WhepPeers('room-kick');
    cleanup.push(() => peers.closeAll());
    const { answerSdp, peerId } = await connectViewer(peers);
    const port = Number(/^a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1 (\d+) typ host/im.exec(answerSdp)?.[1]);
    expect(port).toBeGreaterThan(0);
    const closed: string[] = [];
    peers.on('peer-closed', (id: string) => closed.push(id));
    peers.silenceAll();
    expect(closed).toEqual([peerId]);
    expect(peers.count()).toBe(0);
    expect(peers.send('video', rtpPacket(2))).toBe(0);
    expect(listEvents().some((e) => e.channel === 'whep' && (e.body as { peerId?: string; state?: string }).peerId === peerId && (e.body as { state?: string }).state === 'silenced')).toBe(true);

    // A STUN binding request (RFC 5389 header, no attributes) to the peer's port: no answer, and no ICMP error.
    const probe = createSocket('udp4');
    cleanup.push(() => probe.close());
    const heard: string[] = [];
    probe.on('message', () => heard.push('answer'));
    probe.on('error', (error) => heard.push(error.message));
    await new Promise<void>((resolve) => probe.connect(port, '127.0.0.1', resolve));
    const request = Buffer.alloc(20);
    request.writeUInt16BE(0x0001, 0);
    request.writeUInt32BE(0x2112a442, 4);
    for (let i = 0; i < 3; i += 1) {
      probe.send(request);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(heard).toEqual([]);
    // What a plain close does instead, for contrast: the next datagram meets a closed port.
    peers.closeAll();
    await new Promise((r) => setTimeout(r, 100));
    probe.send(request);
    await expect.poll(() => heard).toContainEqual(expect.stringMatching(/ECONNREFUSED/));
  });

  it('turns an offer werift cannot use into a WhepOfferError without keeping a peer', async () => {
    const peers = new WhepPeers('room-bad');
    const bad = [...MINIMAL_OFFER, 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=rtpmap:96 H264/90000', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=rtpmap:111 opus/48000/2'].join('\r\n');
    await expect(peers.answer(bad)).rejects.toThrow(WhepOfferError);
    await expect(peers.answer(bad)).rejects.toThrow(/could not be answered/);
    expect(peers.count()).toBe(0);
  });

  /** This process's open UDP sockets (each werift peer connection holds its own). */
  const udpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;

  it('a room stopped while offers are being answered keeps no peer: each is refused (gone) and its connection closed', async () => {
    const viewer = await makeViewer();
    cleanup.push(() => viewer.pc.close());
    const before = udpSockets();
    let gone = 0;
    for (let round = 0; round < 20; round++) {
      // Two addresses, as under --lan: werift then runs full ICE and its answer waits on its
      // sockets, so the stop can land in the middle of it (with one it never yields).
      const peers = new WhepPeers(`room-stopped-${round}`, 'h264', 4, ['127.0.0.1', '127.0.0.2']);
      const answering = Promise.allSettled([peers.answer(viewer.offer), peers.answer(viewer.offer)]);
      // The stop lands at a different point of the negotiation each round.
      await new Promise((r) => setTimeout(r, round % 5));
      peers.shutdown();
      const results = await answering;
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WhepGoneError);
      gone += results.filter((r) => r.status === 'rejected').length;
      expect(peers.count(), `round ${round}`).toBe(0);
      await expect(peers.answer(viewer.offer)).rejects.toBeInstanceOf(WhepGoneError);
    }
    // The stop did land during answers (else this test would prove nothing).
    expect(gone).toBeGreaterThan(0);
    // The refused peers' sockets are closed too (werift closes them a moment after close()).
    await expect.poll(udpSockets, { timeout: 5_000 }).toBe(before);
  });

  it('closes a peer whose viewer stopped sending STUN (ICE consent), and keeps one that sends it', async () => {
    // 8 s here (30 s in the stand-in): werift's viewer sends a consent check every 4-6 s.
    const peers = new WhepPeers('room-consent', 'h264', 4, ['127.0.0.1'], 8_000);
    cleanup.push(() => peers.closeAll());
    // When the stand-in heard the viewer's STUN, by its own clock ('heard' comes from the check
    // that also decides the close).
    const heardAt: number[] = [];
    peers.on('heard', () => heardAt.push(performance.now()));
    let viewer!: RTCPeerConnection;
    const { peerId } = await connectViewer(peers, { beforeConnect: (pc) => (viewer = pc) });
    // Kept across more than one consent window: heard again more than 8 s after it was first heard.
    await expect.poll(() => heardAt.length > 1 && heardAt.at(-1)! - heardAt[0]! > 8_000, { timeout: 40_000 }).toBe(true);
    expect(peers.count(), 'a viewer that sends STUN keeps its peer').toBe(1);
    const closedAt = new Promise<{ id: string; at: number }>((resolve) => peers.once('peer-closed', (id: string) => resolve({ id, at: performance.now() })));
    // The viewer vanishes without a word: no close, no more STUN (werift's own consent loop stopped).
    (viewer.iceTransports[0]!.connection as unknown as { stopConsentLifecycle(): void }).stopConsentLifecycle();
    const closed = await closedAt;
    expect(closed.id).toBe(peerId);
    // Closed by the consent rule, not at once: the window (8 s) from the last STUN heard passed
    // first. A late machine only lengthens it; 1 s of room for the check's own run.
    expect(closed.at - heardAt.at(-1)!).toBeGreaterThan(7_000);
  }, 90_000);

  it('offers loopback candidates only to a viewer on this machine', async () => {
    const peers = new WhepPeers('room-lan', 'h264', 4, ['192.0.2.10', '127.0.0.1']);
    cleanup.push(() => peers.closeAll());
    const viewer = await makeViewer();
    cleanup.push(() => viewer.pc.close());
    const hosts = (sdp: string) => [...sdp.matchAll(/^a=candidate:\S+ \d+ udp \d+ (\S+) \d+ typ host/gim)].map((m) => m[1]);
    expect(new Set(hosts((await peers.answer(viewer.offer, { fromLoopback: false })).answerSdp))).toEqual(new Set(['192.0.2.10']));
    expect(new Set(hosts((await peers.answer(viewer.offer, { fromLoopback: true })).answerSdp))).toEqual(new Set(['192.0.2.10', '127.0.0.1']));
  });
});
