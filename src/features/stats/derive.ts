/**
 * Turns two consecutive `RTCPeerConnection.getStats()` reports into the
 * values of the network stats panel. Pure: the sampler keeps the returned
 * counters and hands them back with the next report.
 *
 * - Bitrates come from byte deltas over the reports' own timestamps. Bytes are
 *   read from the transport (what the network actually carries over all its
 *   candidate pairs, which gives a real upstream figure for this receive-only
 *   client: RTCP and STUN), else from the selected candidate pair (Firefox has
 *   no transport stats), else from the RTP streams. Not the selected pair
 *   first: Chromium receiving from werift reports two nominated pairs, and the
 *   one it calls selected carries only the outgoing STUN while the media
 *   arrives on the other, so the pair gave 0 kbps down.
 * - Packet loss is over the interval: Δlost / (Δlost + Δreceived) of the
 *   inbound RTP streams, never the cumulative ratio.
 * - Jitter is the worst inbound stream's (remote-inbound as a fallback), RTT
 *   the candidate pair's currentRoundTripTime (remote-inbound, then
 *   remote-outbound roundTripTime as fallbacks). Both are seconds in WebRTC.
 * - A counter whose source changed (new ids after a media reconnect) or went
 *   backwards is treated like a first sample: no value, never a negative rate.
 * - The route is the selected pair's local candidate type (host, srflx, prflx
 *   or relay: is this client's media relayed?). Unlike the bytes, the pair the
 *   transport names as selected comes first (then Firefox's `selected`, then
 *   nominated and succeeded): it is the path the browser says it uses, even
 *   where, as with werift above, another nominated pair carries the media.
 *   Only the local candidate's type is read, never the remote's. Any value
 *   other than those four words gives null: it is never shown as is.
 * - Anything missing or not a finite number gives null ('—' in the panel).
 */
import { qualityLevel, type QualityLevel } from './quality.ts';

/** One stats object as a browser reports it; only the fields read here are typed. */
export type RawStats = Record<string, unknown> & { id?: unknown; type?: unknown };

/** An RTCStatsReport, a Map, the array of its values, or an id → stats object (JSON fixtures). */
export type StatsReportLike =
  | { forEach(callback: (value: unknown) => void): void }
  | readonly unknown[]
  | Record<string, unknown>;

export interface StatsSample {
  upKbps: number | null;
  downKbps: number | null;
  lossPct: number | null;
  jitterMs: number | null;
  rttMs: number | null;
  quality: QualityLevel | null;
  /**
   * The selected pair's local candidate type: one of CANDIDATE_TYPES or null.
   * Typed as a string because samples also come back from session logs, which
   * may be old (no field at all) or hand-edited: read it through candidateTypeOf().
   */
  candidateType: string | null;
}

/** The ICE candidate types of RTCIceCandidateType, as browsers spell them; the panel shows them as is. */
export const CANDIDATE_TYPES = ['host', 'srflx', 'prflx', 'relay'] as const;
export type CandidateType = (typeof CANDIDATE_TYPES)[number];

/** A known candidate type, or null for anything else (missing, another word, not a string). */
export function candidateTypeOf(value: unknown): CandidateType | null {
  return typeof value === 'string' && (CANDIDATE_TYPES as readonly string[]).includes(value) ? (value as CandidateType) : null;
}

interface ByteCounter {
  /** Which counter the bytes came from; a different key means a different connection. */
  key: string;
  bytes: number;
}

/** What the next derivation needs from this report. Plain data; kept by the sampler, not the store. */
export interface StatsCounters {
  t: number;
  up: ByteCounter | null;
  down: ByteCounter | null;
  inbound: Record<string, { received: number; lost: number }>;
}

export interface Derived {
  sample: StatsSample;
  counters: StatsCounters;
}

export const EMPTY_SAMPLE: StatsSample = {
  upKbps: null,
  downKbps: null,
  lossPct: null,
  jitterMs: null,
  rttMs: null,
  quality: null,
  candidateType: null,
};

export function toStatsList(report: StatsReportLike | null | undefined): RawStats[] {
  if (!report || typeof report !== 'object') return [];
  const values: unknown[] = [];
  if (Array.isArray(report)) values.push(...(report as unknown[]));
  else if (typeof (report as { forEach?: unknown }).forEach === 'function')
    (report as { forEach(cb: (v: unknown) => void): void }).forEach((v) => values.push(v));
  else values.push(...Object.values(report));
  return values.filter(
    (v): v is RawStats => typeof v === 'object' && v !== null && typeof (v as RawStats).type === 'string',
  );
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function maxOf(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? Math.max(...known) : null;
}

function selectedPair(stats: RawStats[]): RawStats | undefined {
  const byId = new Map(stats.map((s) => [s.id, s]));
  for (const s of stats) {
    if (s.type === 'transport' && typeof s.selectedCandidatePairId === 'string') {
      const pair = byId.get(s.selectedCandidatePairId);
      if (pair) return pair;
    }
  }
  const pairs = stats.filter((s) => s.type === 'candidate-pair');
  // Firefox marks the pair `selected`; otherwise the nominated pair that succeeded is the one in use.
  return pairs.find((p) => p.selected === true) ?? pairs.find((p) => p.nominated === true && p.state === 'succeeded');
}

/** The local candidate type of the selected pair (never the remote's: that says nothing of this client's path). */
function localCandidateType(stats: RawStats[], pair: RawStats | undefined): CandidateType | null {
  const localId = pair?.localCandidateId;
  if (typeof localId !== 'string') return null;
  const local = stats.find((s) => s.type === 'local-candidate' && s.id === localId);
  return candidateTypeOf(local?.candidateType);
}

function byteCounter(stats: RawStats[], pair: RawStats | undefined, dir: 'up' | 'down'): ByteCounter | null {
  const field = dir === 'up' ? 'bytesSent' : 'bytesReceived';
  const transport = stats.find((s) => s.type === 'transport' && num(s[field]) !== null);
  if (transport) {
    // Transport ids repeat across connections ('T01'); the DTLS certificate is new with each peer connection.
    const key = `transport:${String(transport.id)}:${String(transport.localCertificateId ?? '')}`;
    return { key, bytes: num(transport[field]) ?? 0 };
  }
  const pairBytes = pair ? num(pair[field]) : null;
  if (pair && pairBytes !== null) return { key: `pair:${String(pair.id)}`, bytes: pairBytes };
  const rtp = stats.filter((s) => s.type === (dir === 'up' ? 'outbound-rtp' : 'inbound-rtp') && num(s[field]) !== null);
  if (!rtp.length) return null;
  return {
    key: `rtp:${rtp.map((s) => String(s.id)).sort().join(',')}`,
    bytes: rtp.reduce((sum, s) => sum + (num(s[field]) ?? 0), 0),
  };
}

function kbps(prev: ByteCounter | null | undefined, next: ByteCounter | null, ms: number | null): number | null {
  if (!prev || !next || ms === null || ms <= 0) return null;
  if (prev.key !== next.key || next.bytes < prev.bytes) return null;
  // bytes × 8 bits / (ms / 1000) s / 1000 = kilobits per second
  return round(((next.bytes - prev.bytes) * 8) / ms, 1);
}

function lossOverInterval(prev: StatsCounters['inbound'] | undefined, next: StatsCounters['inbound']): number | null {
  if (!prev) return null;
  let received = 0;
  let lost = 0;
  let compared = 0;
  for (const [id, now] of Object.entries(next)) {
    const before = prev[id];
    if (!before || now.received < before.received) continue;
    compared += 1;
    received += now.received - before.received;
    // Duplicates can make the cumulative lost count go down; that is not negative loss.
    lost += Math.max(0, now.lost - before.lost);
  }
  if (compared === 0 || received + lost === 0) return null;
  return round((lost / (received + lost)) * 100, 2);
}

function reportTime(stats: RawStats[]): number | null {
  return maxOf(stats.map((s) => num(s.timestamp)));
}

/**
 * @param prev the counters returned for the previous report, or null for the first sample
 * @param now a fallback clock (ms) for reports without timestamps
 */
export function deriveStats(prev: StatsCounters | null, report: StatsReportLike | null, now: number): Derived {
  const stats = toStatsList(report);
  const pair = selectedPair(stats);
  const inbound: StatsCounters['inbound'] = {};
  for (const s of stats) {
    if (s.type !== 'inbound-rtp') continue;
    const received = num(s.packetsReceived);
    // packetsLost is signed in WebRTC; a negative total is clamped rather than dropped.
    const lost = typeof s.packetsLost === 'number' && Number.isFinite(s.packetsLost) ? Math.max(0, s.packetsLost) : 0;
    if (received !== null) inbound[String(s.id)] = { received, lost };
  }
  const counters: StatsCounters = {
    t: reportTime(stats) ?? now,
    up: byteCounter(stats, pair, 'up'),
    down: byteCounter(stats, pair, 'down'),
    inbound,
  };
  const elapsed = prev ? counters.t - prev.t : null;
  const remoteInbound = stats.filter((s) => s.type === 'remote-inbound-rtp');
  const jitterS =
    maxOf(stats.filter((s) => s.type === 'inbound-rtp').map((s) => num(s.jitter))) ??
    maxOf(remoteInbound.map((s) => num(s.jitter)));
  const rttS =
    (pair ? num(pair.currentRoundTripTime) : null) ??
    maxOf(remoteInbound.map((s) => num(s.roundTripTime))) ??
    maxOf(stats.filter((s) => s.type === 'remote-outbound-rtp').map((s) => num(s.roundTripTime)));

  const downKbps = kbps(prev?.down, counters.down, elapsed);
  const lossPct = elapsed !== null && elapsed > 0 ? lossOverInterval(prev?.inbound, inbound) : null;
  const rttMs = rttS === null ? null : round(rttS * 1000, 1);
  const sample: StatsSample = {
    upKbps: kbps(prev?.up, counters.up, elapsed),
    downKbps,
    lossPct,
    jitterMs: jitterS === null ? null : round(jitterS * 1000, 1),
    rttMs,
    quality: qualityLevel({ kbps: downKbps, lossPct, rttMs }),
    candidateType: localCandidateType(stats, pair),
  };
  return { sample, counters };
}
