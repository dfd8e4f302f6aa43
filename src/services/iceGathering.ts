/**
 * ICE gathering for a WHEP offer (whep.ts): how long an offer waits for its candidates.
 * Gathering can run long after it has what the media needs, so the offer goes as soon as a
 * candidate that can carry the media by itself has been gathered (and its siblings have had a
 * moment), at the first candidate when asked, or at a bounded timeout.
 */
import { createLogger } from './logger.ts';

const log = createLogger('whep');

/** A bounded wait: with TURN servers gathering can take long, and a partial offer still works. */
export const ICE_GATHERING_TIMEOUT_MS = 2000;

export const hasCandidate = (sdp: string | undefined): boolean => sdp !== undefined && /^a=candidate:/m.test(sdp);

/**
 * Once a candidate that can carry the media by itself has been gathered, the offer waits this
 * much more for its siblings (the same kind on the phone's other interfaces), then goes.
 */
export const CANDIDATE_SETTLE_MS = 100;

/**
 * Resolves when ICE gathering completes, or earlier: at `timeoutMs` (the offer then goes with
 * the candidates found so far), at the first candidate gathered (`firstCandidate`), or
 * CANDIDATE_SETTLE_MS after the first candidate `sufficient` accepts. Gathering can run long
 * after it has what is needed: just after a phone changed networks, Chromium still gathers on
 * the address it no longer has, and that part never completes (2 s of a frozen avatar on
 * every reconnect). Rejects when `signal` aborts.
 */
export function whenGathered(
  pc: RTCPeerConnection,
  signal: AbortSignal,
  until: { timeoutMs?: number; firstCandidate?: boolean; sufficient?: (candidate: RTCIceCandidate) => boolean },
): Promise<void> {
  let sufficient = until.sufficient;
  /** Whether a candidate has been gathered (any kind). */
  let gathered = false;
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new DOMException('WHEP connect aborted', 'AbortError'));
      return;
    }
    let settle: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(settle);
      pc.removeEventListener('icegatheringstatechange', onChange);
      pc.removeEventListener('icecandidateerror', onRelayError);
      pc.removeEventListener('icecandidate', onCandidate);
      signal.removeEventListener('abort', onAbort);
    };
    const onChange = () => {
      if (pc.iceGatheringState !== 'complete') return;
      finish();
      resolve();
    };
    const settleNow = () => {
      settle ??= setTimeout(() => {
        finish();
        resolve();
      }, CANDIDATE_SETTLE_MS);
    };
    const onCandidate = (event: RTCPeerConnectionIceEvent) => {
      if (!event.candidate) return;
      gathered = true;
      if (until.firstCandidate) {
        finish();
        resolve();
        return;
      }
      if (sufficient?.(event.candidate)) settleNow();
    };
    // A relay that refused the allocation (its quota full of the allocations a phone left on
    // the addresses it no longer has, a credential it rejects: an error answer, 300 to 699)
    // gives no relay candidate: whatever was gathered is then as good as it gets. An error of
    // one local interface that could not reach it (701, routine on an IPv6 interface) says
    // nothing of the others, and is not taken for one.
    const onRelayError = (event: Event) => {
      const { url, errorCode } = event as RTCPeerConnectionIceErrorEvent;
      if (!sufficient || !/^turns?:/i.test(url ?? '') || !(errorCode >= 300 && errorCode < 700)) return;
      sufficient = () => true;
      if (gathered) settleNow();
    };
    const onAbort = () => {
      finish();
      reject(new DOMException('WHEP connect aborted', 'AbortError'));
    };
    const timer =
      until.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            finish();
            log.info('ICE gathering still running; sending the candidates found so far');
            resolve();
          }, until.timeoutMs);
    pc.addEventListener('icegatheringstatechange', onChange);
    if (until.firstCandidate || until.sufficient) pc.addEventListener('icecandidate', onCandidate);
    if (until.sufficient) pc.addEventListener('icecandidateerror', onRelayError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A candidate that can carry the media by itself: with a TURN server configured, a relay
 * candidate (it works whether or not the phone's network lets UDP through to the media
 * server, and ?relay=1 allows nothing else); without one, any candidate (the media server is
 * ICE-lite with a public address, so the phone's own address is enough).
 */
export function sufficientFor(iceServers: RTCIceServer[] | undefined): (candidate: RTCIceCandidate) => boolean {
  const urls = (iceServers ?? []).flatMap((server) => (Array.isArray(server.urls) ? server.urls : [server.urls]));
  const turn = urls.some((url) => /^turns?:/i.test(url));
  return turn ? (candidate) => candidate.type === 'relay' || / typ relay/.test(candidate.candidate) : () => true;
}
