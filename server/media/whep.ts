/**
 * The WHEP side of a room: one werift RTCPeerConnection per viewer, answering with every ICE
 * candidate already in the SDP (WHEP without trickle), on loopback unless told otherwise, ICE-lite as SRS is.
 * Each peer has its own tracks because werift's sender rewrites the packets it is given (SSRC,
 * sequence offsets).
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import {
  MediaStreamTrack,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  useAbsSendTime,
  useNACK,
  usePLI,
  useSdesMid,
} from 'werift';
import { recordEvent } from '../events.ts';
import { createLogger } from '../log.ts';
import { filterOfferCandidates, mediaReach, type Reach } from '../reach.ts';
import { AUDIO_PAYLOAD_TYPE, H264_FMTP, VIDEO_PAYLOAD_TYPE, type VideoCodec } from './encoders.ts';
import { WhepBusyError, WhepGoneError, WhepOfferError, checkWhepOffer } from './offer.ts';

const log = createLogger('media');

const GATHER_TIMEOUT_MS = 5000;
/** An answer nobody connects to is abandoned after this long. */
const CONNECT_TIMEOUT_MS = 20_000;
/** werift reports 'disconnected' on consent loss; give the path a moment to recover. */
const DISCONNECTED_GRACE_MS = 5000;
/**
 * A peer whose viewer has sent no STUN binding request for this long is gone, as SRS decides
 * it (an RTC session dies `stun_timeout`, 30 s, after its last STUN). A browser keeps sending
 * them on the selected pair every few seconds for as long as it holds the connection (ICE
 * consent freshness, RFC 7675); werift as an ICE-lite agent sends none itself and would keep a
 * vanished viewer's peer "connected", and its RTP flowing, for ever.
 */
export const CONSENT_TIMEOUT_MS = 30_000;
const CONSENT_CHECK_MS = 1_000;
/**
 * A silenced peer's socket stays open this long (SRS's UDP port never closes), so the
 * browser meets no ICMP "port unreachable" that would tell it at once: it finds out from
 * the silence only. Long after any browser has given up on it, it is let go.
 */
const SILENCED_KEPT_MS = 60_000;

interface Peer {
  id: string;
  pc: RTCPeerConnection;
  video: MediaStreamTrack;
  audio: MediaStreamTrack;
  connected: boolean;
  closed: boolean;
  /** Answered but never sent media (the whep-no-media fault: SRS playing a stream nobody publishes). */
  silent: boolean;
  timer: NodeJS.Timeout | undefined;
  /** performance.now() of the viewer's last STUN binding request (of the answer, before the first). */
  lastStun: number;
  /** STUN binding requests received on the peer's candidate pairs so far. */
  stunSeen: number;
}

const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '::1';

/** The STUN binding requests the viewer has sent this peer (werift counts them per candidate pair). */
function stunRequestsReceived(pc: RTCPeerConnection): number {
  let total = 0;
  for (const transport of pc.iceTransports) for (const pair of transport.connection.candidatePairs) total += pair.requestsReceived;
  return total;
}

function videoCodecParameters(codec: VideoCodec): RTCRtpCodecParameters {
  const rtcpFeedback = [useNACK(), usePLI()];
  return codec === 'vp8'
    ? new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000, payloadType: VIDEO_PAYLOAD_TYPE, rtcpFeedback })
    : new RTCRtpCodecParameters({ mimeType: 'video/H264', clockRate: 90000, payloadType: VIDEO_PAYLOAD_TYPE, rtcpFeedback, parameters: H264_FMTP });
}

/**
 * `hostAddresses`: the addresses the stand-in serves media on, decided from HOST (server/lan.ts);
 * one address is also the one bound. `announced`: those of them this viewer is offered.
 */
function newPeerConnection(codec: VideoCodec, hostAddresses: readonly string[], announced: readonly string[]): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: [],
    // SRS answers as an ICE-lite agent: it only answers checks, the browser controls. werift
    // binds every host candidate's socket to 0.0.0.0 when there are several (HOST=0.0.0.0),
    // so a lite agent's answers leave from whatever address the kernel picks, which a TURN
    // relay has no permission for; with several addresses the stand-in runs full ICE.
    iceLite: hostAddresses.length === 1,
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [...announced],
    ...(hostAddresses.length === 1 ? { iceInterfaceAddresses: { udp4: hostAddresses[0] } } : {}),
    codecs: {
      video: [videoCodecParameters(codec)],
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: AUDIO_PAYLOAD_TYPE })],
    },
    headerExtensions: { video: [useSdesMid(), useAbsSendTime()], audio: [useSdesMid()] },
  });
}

function waitForGathering(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(finish, GATHER_TIMEOUT_MS);
    const { unSubscribe } = pc.iceGatheringStateChange.subscribe((state) => {
      if (state === 'complete') finish();
    });
    function finish(): void {
      clearTimeout(timer);
      unSubscribe();
      resolve();
    }
  });
}

/** Emits 'peer-connected' (peerId), 'peer-closed' (peerId) and 'heard' (a viewer sent STUN). */
export class WhepPeers extends EventEmitter {
  private readonly peers = new Map<string, Peer>();
  /** Peers dropped silently (silenceAll), their sockets kept open until SILENCED_KEPT_MS or closeAll. */
  private readonly silenced = new Map<string, { pc: RTCPeerConnection; timer: NodeJS.Timeout }>();
  /** Offers being answered: they count against the limit from the moment they arrive. */
  private answering = 0;
  /** The room's media is closed: no offer being answered may add its peer any more. */
  private closed = false;
  private consentTimer: NodeJS.Timeout | null = null;
  /** The candidates werift may send STUN to (server/reach.ts), read from the interfaces when the room starts. */
  private readonly reach: Reach;

  constructor(
    private readonly roomId: string,
    private readonly codec: VideoCodec = 'h264',
    private readonly maxPeers = 4,
    private readonly hostAddresses: readonly string[] = ['127.0.0.1'],
    private readonly consentTimeoutMs = CONSENT_TIMEOUT_MS,
    reach?: Reach,
  ) {
    super();
    this.reach = reach ?? mediaReach(hostAddresses);
  }

  /**
   * At most `maxPeers` at any moment, counting offers still being answered and peers still
   * connecting, so concurrent offers cannot all slip past the check. Peers whose connection
   * already failed or closed are reclaimed first; a live one is never evicted for a newcomer
   * (that is usually the viewer watching): the newcomer gets WhepBusyError instead.
   */
  private reserve(): void {
    if (this.peers.size + this.answering >= this.maxPeers) {
      for (const peer of [...this.peers.values()]) {
        if (peer.pc.connectionState === 'failed' || peer.pc.connectionState === 'closed') this.close(peer.id);
      }
    }
    if (this.peers.size + this.answering >= this.maxPeers) {
      log.warn('peer limit reached, refusing the offer', { roomId: this.roomId, peers: this.peers.size, answering: this.answering });
      throw new WhepBusyError(`room ${this.roomId} already has ${this.maxPeers} viewers (counting those still connecting); end one with DELETE on its Location, or try again when one has closed`);
    }
    this.answering++;
  }

  async answer(offerSdp: string, opts: { silent?: boolean; fromLoopback?: boolean } = {}): Promise<{ answerSdp: string; peerId: string }> {
    if (this.closed) throw new WhepGoneError(`room ${this.roomId} has no media: it was stopped`);
    checkWhepOffer(offerSdp, this.codec);
    this.reserve();
    try {
      return await this.negotiate(offerSdp, opts.silent ?? false, opts.fromLoopback ?? true);
    } finally {
      this.answering--;
    }
  }

  /** The host candidates for a viewer: loopback addresses only for one on this machine, who alone can reach them. */
  private candidatesFor(fromLoopback: boolean): readonly string[] {
    if (fromLoopback) return this.hostAddresses;
    const reachable = this.hostAddresses.filter((a) => !isLoopback(a));
    return reachable.length > 0 ? reachable : this.hostAddresses;
  }

  private async negotiate(offerSdp: string, silent: boolean, fromLoopback: boolean): Promise<{ answerSdp: string; peerId: string }> {
    const pc = newPeerConnection(this.codec, this.hostAddresses, this.candidatesFor(fromLoopback));
    const peer: Peer = {
      id: randomUUID(),
      pc,
      video: new MediaStreamTrack({ kind: 'video' }),
      audio: new MediaStreamTrack({ kind: 'audio' }),
      connected: false,
      closed: false,
      silent,
      timer: undefined,
      lastStun: performance.now(),
      stunSeen: 0,
    };
    try {
      const video = pc.addTransceiver(peer.video, { direction: 'sendonly' });
      pc.addTransceiver(peer.audio, { direction: 'sendonly' });
      // A viewer asking for a keyframe (a late first frame, a loss) is recorded, not obeyed: the
      // encoder cannot be told, and it sends one every second anyway (SRS passes it to the publisher).
      video.sender.onPictureLossIndication.subscribe(() => recordEvent('whep', 'in', { roomId: this.roomId, peerId: peer.id, rtcp: 'pli' }));
      // Only the candidates the relay's rules allow reach werift: it would send STUN to any
      // address an offer names (another host, this machine's loopback or VPN) and look up
      // any .local name by multicast DNS (issue 53).
      const offer = filterOfferCandidates(this.reach, offerSdp);
      if (offer.dropped.length > 0) {
        log.info('offer candidates dropped', { roomId: this.roomId, peerId: peer.id, dropped: offer.dropped });
        recordEvent('whep', 'in', { roomId: this.roomId, peerId: peer.id, candidates: { kept: offer.kept, dropped: offer.dropped } });
      }
      await pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await waitForGathering(pc);
    } catch (err) {
      void pc.close().catch(() => undefined);
      const reason = err instanceof Error ? err.message : String(err);
      log.warn('whep offer rejected', { roomId: this.roomId, reason });
      throw new WhepOfferError(`the offer could not be answered: ${reason}`);
    }
    // The room was stopped while this offer was being answered (stop_live, a reclaim): its
    // peer must not join a pipeline that is gone, where nothing would ever close it.
    if (this.closed) {
      void pc.close().catch(() => undefined);
      throw new WhepGoneError(`room ${this.roomId} was stopped while the offer was answered`);
    }
    const answerSdp = pc.localDescription?.sdp;
    if (!answerSdp) {
      void pc.close().catch(() => undefined);
      throw new WhepOfferError('the offer could not be answered: no local description');
    }
    this.peers.set(peer.id, peer);
    this.watchConsent();
    pc.connectionStateChange.subscribe((state) => this.onState(peer, state));
    this.arm(peer, CONNECT_TIMEOUT_MS, 'never connected');
    log.info('whep answer', { roomId: this.roomId, peerId: peer.id, peers: this.peers.size });
    return { answerSdp, peerId: peer.id };
  }

  private arm(peer: Peer, ms: number, reason: string): void {
    clearTimeout(peer.timer);
    peer.timer = setTimeout(() => {
      log.warn('closing peer', { roomId: this.roomId, peerId: peer.id, reason });
      this.close(peer.id, reason);
    }, ms);
    peer.timer.unref();
  }

  private onState(peer: Peer, state: string): void {
    if (peer.closed) return;
    recordEvent('whep', 'out', { roomId: this.roomId, peerId: peer.id, state });
    log.info('peer state', { roomId: this.roomId, peerId: peer.id, state });
    if (state === 'connected') {
      clearTimeout(peer.timer);
      if (!peer.connected) {
        peer.connected = true;
        this.emit('peer-connected', peer.id);
      }
    } else if (state === 'disconnected') {
      this.arm(peer, DISCONNECTED_GRACE_MS, 'disconnected too long');
    } else if (state === 'failed' || state === 'closed') {
      this.close(peer.id);
    }
  }

  /** Forwards one RTP packet to every connected peer; returns how many got it. */
  send(kind: 'video' | 'audio', packet: Buffer): number {
    let sent = 0;
    for (const peer of this.peers.values()) {
      if (!peer.connected || peer.silent) continue;
      try {
        peer[kind].writeRtp(packet);
        sent++;
      } catch (err) {
        log.warn('rtp forward failed', { roomId: this.roomId, peerId: peer.id, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return sent;
  }

  /** False when there is no such peer (never was, or already closed). A timer's `reason` goes in the event. */
  close(peerId: string, reason?: string): boolean {
    const peer = this.peers.get(peerId);
    if (!peer || peer.closed) return false;
    peer.closed = true;
    clearTimeout(peer.timer);
    this.peers.delete(peerId);
    peer.video.stop();
    peer.audio.stop();
    recordEvent('whep', 'out', { roomId: this.roomId, peerId, state: 'closed', ...(reason ? { reason } : {}) });
    void peer.pc.close().catch((err: unknown) => log.warn('peer close failed', { peerId, error: String(err) }));
    this.emit('peer-closed', peerId);
    return true;
  }

  closeAll(): void {
    for (const id of [...this.peers.keys()]) this.close(id);
    for (const id of [...this.silenced.keys()]) this.forgetSilenced(id);
  }

  /**
   * Drops every peer the way SRS's API kick does (srs_app_http_api.cpp: the client's
   * connection is expired and freed; SrsRtcConnection's destructor frees the DTLS session
   * without a close_notify and sends no RTCP BYE, and later ICE checks for its username
   * find no session on SRS's shared UDP port and go unanswered): from here nothing goes to
   * the browser and nothing it sends is answered, but its socket stays open.
   */
  silenceAll(): void {
    for (const peer of [...this.peers.values()]) {
      this.peers.delete(peer.id);
      peer.closed = true;
      clearTimeout(peer.timer);
      peer.video.stop();
      peer.audio.stop();
      let muted = 0;
      for (const ice of peer.pc.iceTransports) {
        // werift 0.24's ICE connection keeps its sockets in a private `protocols` list.
        const protocols = (ice.connection as unknown as { protocols?: { transport?: { onData?: unknown; send?: unknown } }[] }).protocols ?? [];
        for (const { transport } of protocols) {
          if (!transport) continue;
          // Deaf and mute, but bound: RTP, RTCP, DTLS and STUN all go through these two.
          transport.onData = () => {};
          transport.send = () => Promise.resolve();
          muted += 1;
        }
      }
      if (muted === 0) log.warn('could not reach a silenced peer\'s sockets: its ICE may still answer', { roomId: this.roomId, peerId: peer.id });
      const timer = setTimeout(() => this.forgetSilenced(peer.id), SILENCED_KEPT_MS);
      timer.unref();
      this.silenced.set(peer.id, { pc: peer.pc, timer });
      recordEvent('whep', 'out', { roomId: this.roomId, peerId: peer.id, state: 'silenced' });
      this.emit('peer-closed', peer.id);
    }
  }

  private forgetSilenced(peerId: string): void {
    const held = this.silenced.get(peerId);
    if (!held) return;
    this.silenced.delete(peerId);
    clearTimeout(held.timer);
    void held.pc.close().catch(() => undefined);
  }

  /** The room's media is closing: every peer goes, and an offer still being answered is refused. */
  shutdown(): void {
    this.closed = true;
    this.closeAll();
  }

  /** Once a second while there are peers: who has sent a STUN request (heard), and who has not for too long. */
  private watchConsent(): void {
    if (this.consentTimer) return;
    this.consentTimer = setInterval(() => {
      const now = performance.now();
      let heard = false;
      for (const peer of [...this.peers.values()]) {
        let seen = peer.stunSeen;
        try {
          seen = stunRequestsReceived(peer.pc);
        } catch {
          // A connection werift is tearing down has no pairs to read: it is closing anyway.
        }
        if (seen !== peer.stunSeen) {
          peer.stunSeen = seen;
          peer.lastStun = now;
          heard = true;
        } else if (now - peer.lastStun >= this.consentTimeoutMs) {
          log.warn('closing peer', { roomId: this.roomId, peerId: peer.id, reason: `no STUN from the viewer for ${this.consentTimeoutMs} ms (ICE consent)` });
          this.close(peer.id);
        }
      }
      if (heard) this.emit('heard');
      if (this.peers.size === 0 && this.consentTimer) {
        clearInterval(this.consentTimer);
        this.consentTimer = null;
      }
    }, CONSENT_CHECK_MS);
    this.consentTimer.unref();
  }

  count(): number {
    return this.peers.size;
  }
}
