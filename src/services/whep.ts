/**
 * WHEP playback of the avatar: a receive-only RTCPeerConnection whose offer is
 * POSTed to the media server (application/sdp, 201 + SDP answer expected).
 *
 * connect() honours its AbortSignal at every await: an aborted connect rejects
 * and closes its peer connection, so a cancelled session never leaks one.
 *
 * prepare() builds the next connection's offer ahead of time (peer connection,
 * transceivers, ICE gathering), so the session start does it while it waits for
 * the stream instead of after; the next connect() takes it. A prepared peer
 * connection is closed when its signal aborts.
 */
import { createReplayEmitter } from './emitter.ts';
import type { HttpClient } from './http.ts';
import { createLogger } from './logger.ts';
import { throwIfAborted } from './compat.ts';
import { untilAborted } from './deadline.ts';
import { hasCandidate, ICE_GATHERING_TIMEOUT_MS, sufficientFor, whenGathered } from './iceGathering.ts';

export { CANDIDATE_SETTLE_MS, ICE_GATHERING_TIMEOUT_MS } from './iceGathering.ts';

const log = createLogger('whep');

export type PeerEvent =
  | { type: 'connectionState'; state: RTCPeerConnectionState }
  | { type: 'iceCandidateError'; errorCode: number; errorText: string };

export interface WhepConnection {
  /** The avatar's remote video and audio tracks. */
  readonly stream: MediaStream;
  connectionState(): RTCPeerConnectionState;
  /** Events raised before the first subscriber are replayed to it, so nothing is lost after connect() resolves. */
  subscribe(listener: (event: PeerEvent) => void): () => void;
  getStats(): Promise<RTCStatsReport>;
  /**
   * A figure that changes whenever media has arrived since the last call (the packets
   * received across the inbound RTP streams), null while nothing has arrived. Asked four
   * times a second: it is how a media path that went silent is noticed while the
   * connection still says connected (a media server that dropped the player, a network
   * that changed under it).
   */
  mediaMark(): Promise<number | null>;
  /**
   * Closes the peer connection and, once the media server has answered (201 with a Location),
   * hangs up there too (DELETE, RFC 9725): SRS then frees the session at once instead of after
   * its 30 s timeout. The DELETE is not waited for; the HTTP timeout bounds it.
   */
  close(): void;
}

export interface WhepService {
  isSupported(): boolean;
  /**
   * Starts building the offer of the next connect(); closed when `signal` aborts. `iceServers`:
   * the session's own (from its route), instead of the build's.
   */
  prepare(signal: AbortSignal, iceServers?: RTCIceServer[]): void;
  connect(params: { srsLink: string; roomId: string; iceServers?: RTCIceServer[] }, signal: AbortSignal): Promise<WhepConnection>;
}

/** 'ice': not one candidate could be gathered (every ICE server refused or unreachable, or relay-only without a relay). */
export type WhepErrorKind = 'unsupported' | 'negotiation' | 'answer' | 'ice';

export class WhepError extends Error {
  override readonly name = 'WhepError';
  constructor(
    readonly kind: WhepErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function whepUrl(srsLink: string, roomId: string): string {
  return `${srsLink}/rtc/v1/whep/?app=live&stream=${encodeURIComponent(roomId)}`;
}

/** `promise`, or an AbortError as soon as `signal` aborts; the listener is removed either way. */
async function untilConnectAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  throwIfAborted(signal, 'WHEP connect aborted');
  return untilAborted(promise, signal, () => new DOMException('WHEP connect aborted', 'AbortError'));
}

/** SRS's Location is a path; it is relative to the WHEP URL (itself possibly relative to the page). */
function resolveUrl(location: string, base: string): string {
  try {
    return new URL(location, new URL(base, globalThis.location?.href)).href;
  } catch {
    return location;
  }
}

type InboundStat = { type?: string; id?: string; packetsReceived?: number };

/**
 * See WhepConnection.mediaMark: the packets received over the inbound RTP streams. Not the
 * receivers' synchronization sources, which are stamped at playout: after the path died,
 * Chromium's audio receiver went on stamping for 1.1 s (its jitter buffer played out and
 * concealed) and its video receiver for 0.4 s, so a silence was noticed up to a second late.
 *
 * Asked four times a second for the whole call, it reads the streams it found by their ids
 * (`report.get`): walking the report (`forEach`) turns every statistic in it into a
 * JavaScript object, and only the inbound RTP ones are wanted, one in nine of the video
 * receiver's. The report is walked again whenever that reading did not move (a stream gone,
 * no media at all, or streams that stalled while a new one flows: a publisher's new SSRC is
 * found once the old stream stands still), so a mark that stands still is always the whole
 * report's. A stream without an id (which the specification does not allow) is summed on
 * every call by walking every time.
 */
function mediaMarkReader(pc: RTCPeerConnection): () => Promise<number | null> {
  let ids: string[] = [];
  let last: number | null = null;
  const read = (report: RTCStatsReport): number | null => {
    // A maplike in every browser with WebRTC; typed so here for tsconfig.node.json, which reaches
    // this file through the tests and knows only its forEach (DOM without DOM.Iterable).
    const byId = report as unknown as ReadonlyMap<string, InboundStat>;
    let packets = 0;
    for (const id of ids) {
      const stat = byId.get(id);
      if (stat?.type !== 'inbound-rtp') return null;
      packets += stat.packetsReceived ?? 0;
    }
    return packets > 0 ? packets : null;
  };
  const walk = (report: RTCStatsReport): number | null => {
    let packets = 0;
    let found: string[] | null = [];
    report.forEach((stat: InboundStat) => {
      if (stat.type !== 'inbound-rtp') return;
      if (stat.id) found?.push(stat.id);
      else found = null;
      packets += stat.packetsReceived ?? 0;
    });
    ids = found ?? [];
    return packets > 0 ? packets : null;
  };
  return async () => {
    // The video receiver's alone: the audio's statistics are read from the jitter buffer that
    // plays the avatar's voice out, and asked four times a second they are suspected of
    // letting its echo through in the tests (the avatar's video never pauses).
    const video = pc.getReceivers().find((receiver) => receiver.track?.kind === 'video');
    const report = await (video ? video.getStats() : pc.getStats());
    const quick = ids.length > 0 ? read(report) : null;
    last = quick !== null && quick !== last ? quick : walk(report);
    return last;
  };
}

/** Where a connection's DELETE goes, known from the 201 answer on. */
interface Resource {
  url: string | null;
}

function wrapConnection(pc: RTCPeerConnection, hangUp: (url: string) => void): WhepConnection & { resource: Resource } {
  const stream = new MediaStream();
  const resource: Resource = { url: null };
  const events = createReplayEmitter<PeerEvent>();
  const emit = events.emit;
  pc.addEventListener('track', (event) => {
    if (!stream.getTracks().includes(event.track)) stream.addTrack(event.track);
  });
  pc.addEventListener('connectionstatechange', () => emit({ type: 'connectionState', state: pc.connectionState }));
  pc.addEventListener('icecandidateerror', (event) => {
    const e = event as RTCPeerConnectionIceErrorEvent;
    emit({ type: 'iceCandidateError', errorCode: e.errorCode, errorText: e.errorText });
  });
  return {
    stream,
    resource,
    connectionState: () => pc.connectionState,
    subscribe: events.subscribe,
    getStats: () => pc.getStats(),
    mediaMark: mediaMarkReader(pc),
    close() {
      events.clear();
      for (const track of stream.getTracks()) track.stop();
      pc.close();
      const url = resource.url;
      resource.url = null;
      if (url !== null) hangUp(url);
    },
  };
}

export interface WhepDeps {
  http: HttpClient;
  iceServers: RTCIceServer[];
  /** 'relay': only the TURN relay's candidates (`?relay=1`). Default 'all'. */
  iceTransportPolicy?: RTCIceTransportPolicy;
  /** Injected so tests can pass a fake; defaults to the browser's RTCPeerConnection. */
  createPeer?: (config: RTCConfiguration) => RTCPeerConnection;
  iceGatheringTimeoutMs?: number;
}

export function isWebRtcSupported(): boolean {
  return typeof RTCPeerConnection === 'function' && typeof MediaStream === 'function';
}

/** A peer connection with its offer under way (or made). */
interface Offering {
  pc: RTCPeerConnection;
  connection: ReturnType<typeof wrapConnection>;
  /** The gathered offer; settles once, and is awaited by whoever takes the peer. */
  offerSdp: Promise<string>;
  signal: AbortSignal;
}

export function createWhepService(deps: WhepDeps): WhepService {
  const createPeer = deps.createPeer ?? ((config) => new RTCPeerConnection(config));
  let prepared: Offering | null = null;
  // Fire and forget, within the HTTP timeout, surviving the page (keepalive): nothing waits on
  // a hang-up, and a media server that does not hear it times the session out by itself.
  const hangUp = (url: string): void => {
    deps.http.delete(url, { keepalive: true }).then(
      () => log.info('WHEP session deleted'),
      (error: unknown) => log.warn('WHEP DELETE failed', { error: String(error) }),
    );
  };

  const startOffer = (signal: AbortSignal, iceServers = deps.iceServers): Offering => {
    const pc = createPeer({ iceServers, iceTransportPolicy: deps.iceTransportPolicy ?? 'all' });
    const connection = wrapConnection(pc, hangUp);
    const offerSdp = (async () => {
      pc.addTransceiver('video', { direction: 'recvonly' });
      pc.addTransceiver('audio', { direction: 'recvonly' });
      const offer = await pc.createOffer();
      throwIfAborted(signal, 'WHEP connect aborted');
      await pc.setLocalDescription(offer);
      throwIfAborted(signal, 'WHEP connect aborted');
      await whenGathered(pc, signal, { timeoutMs: deps.iceGatheringTimeoutMs ?? ICE_GATHERING_TIMEOUT_MS, sufficient: sufficientFor(iceServers) });
      throwIfAborted(signal, 'WHEP connect aborted');
      // Past the gathering timeout with nothing found yet (a TURN allocation over a slow
      // link): wait on for the first candidate or the end of gathering; the session's
      // start limit bounds the wait.
      if (!hasCandidate(pc.localDescription?.sdp)) await whenGathered(pc, signal, { firstCandidate: true });
      const sdp = pc.localDescription?.sdp;
      if (!sdp) throw new WhepError('negotiation', 'no local description');
      // An offer without a single candidate can never connect, and the browser would not
      // say so (the connection stays 'new'): with a wrong TURN credential and ?relay=1,
      // the only ICE server answers 401 and nothing is gathered. That is an ICE error.
      if (!hasCandidate(sdp)) throw new WhepError('ice', `no ICE candidate was gathered (policy ${deps.iceTransportPolicy ?? 'all'})`);
      return sdp;
    })();
    return { pc, connection, offerSdp, signal };
  };

  /** The prepared offering if it still belongs to a live signal; otherwise a new one. */
  const takeOffering = (signal: AbortSignal, iceServers: RTCIceServer[] | undefined): Offering => {
    const ready = prepared;
    prepared = null;
    if (ready && !ready.signal.aborted) return ready;
    return startOffer(signal, iceServers);
  };

  return {
    isSupported: () => (deps.createPeer ? true : isWebRtcSupported()),
    prepare(signal, iceServers) {
      if (signal.aborted) return;
      if (prepared && !prepared.signal.aborted) return;
      let offering: Offering;
      try {
        offering = startOffer(signal, iceServers);
      } catch (error) {
        // A peer connection the browser refuses (bad ICE server, too many): connect() tries
        // again and reports it where the session expects media failures.
        log.warn('could not prepare the WHEP offer', { error: String(error) });
        return;
      }
      // Its failure is reported by the connect() that takes it.
      offering.offerSdp.catch(() => {});
      prepared = offering;
      signal.addEventListener(
        'abort',
        () => {
          if (prepared === offering) prepared = null;
          offering.connection.close();
        },
        { once: true },
      );
    },
    async connect({ srsLink, roomId, iceServers }, signal) {
      throwIfAborted(signal, 'WHEP connect aborted');
      const { connection, pc, offerSdp: offering } = takeOffering(signal, iceServers);
      try {
        // A prepared offer watches its own signal; this connect's may be another.
        const offerSdp = await untilConnectAborted(offering, signal);
        const answer = await deps.http.postText(whepUrl(srsLink, roomId), offerSdp, 'application/sdp', { signal });
        throwIfAborted(signal, 'WHEP connect aborted');
        // From here the media server holds a session for us, which close() hangs up.
        if (answer.location) connection.resource.url = resolveUrl(answer.location, whepUrl(srsLink, roomId));
        if (answer.status !== 201 || !answer.text.trimStart().startsWith('v=')) {
          throw new WhepError('answer', `WHEP answer rejected (HTTP ${answer.status})`);
        }
        await pc.setRemoteDescription({ type: 'answer', sdp: answer.text });
        throwIfAborted(signal, 'WHEP connect aborted');
        return connection;
      } catch (error) {
        connection.close();
        if (!signal.aborted) log.warn('WHEP connect failed', { roomId, error: String(error) });
        throw error;
      }
    },
  };
}
