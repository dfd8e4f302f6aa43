/**
 * The network quality table of docs/requirements.md R115, exactly:
 *
 * | level     | bitrate (kbps) | packet loss (%) | round-trip time (ms) |
 * |-----------|----------------|-----------------|----------------------|
 * | excellent | ≥ 1000         | ≤ 1             | ≤ 100                |
 * | good      | ≥ 500          | ≤ 3             | ≤ 200                |
 * | fair      | ≥ 300          | ≤ 5             | ≤ 300                |
 * | poor      | otherwise      |                 |                      |
 *
 * Boundaries are inclusive: a value equal to a row's limit meets that row
 * (1000 kbps, 1 % and 100 ms is still excellent). A level needs all three
 * conditions of its row; the best row met wins.
 *
 * The bitrate is the DOWNSTREAM bitrate: the client only receives the avatar
 * (WHEP), so upstream is RTCP and STUN, a few kbps that says nothing about
 * quality; adding it would only blur the thresholds.
 *
 * Missing values: without a bitrate there is no level (null, shown as '—'),
 * because the first sample of a connection has no delta yet. A missing loss
 * or RTT (an interval without packets, a browser that does not report RTT)
 * does not constrain the level; it is judged by the values that are known.
 */
export type QualityLevel = 'excellent' | 'good' | 'fair' | 'poor';

export const QUALITY_LEVELS: readonly QualityLevel[] = ['excellent', 'good', 'fair', 'poor'];

export interface QualityRow {
  level: Exclude<QualityLevel, 'poor'>;
  minKbps: number;
  maxLossPct: number;
  maxRttMs: number;
}

export const QUALITY_TABLE: readonly QualityRow[] = [
  { level: 'excellent', minKbps: 1000, maxLossPct: 1, maxRttMs: 100 },
  { level: 'good', minKbps: 500, maxLossPct: 3, maxRttMs: 200 },
  { level: 'fair', minKbps: 300, maxLossPct: 5, maxRttMs: 300 },
];

export interface QualityInput {
  /** Downstream bitrate in kbps. */
  kbps: number | null;
  lossPct: number | null;
  rttMs: number | null;
}

function known(value: number | null): value is number {
  return value !== null && Number.isFinite(value);
}

export function qualityLevel({ kbps, lossPct, rttMs }: QualityInput): QualityLevel | null {
  if (!known(kbps)) return null;
  for (const row of QUALITY_TABLE) {
    const bitrateOk = kbps >= row.minKbps;
    const lossOk = !known(lossPct) || lossPct <= row.maxLossPct;
    const rttOk = !known(rttMs) || rttMs <= row.maxRttMs;
    if (bitrateOk && lossOk && rttOk) return row.level;
  }
  return 'poor';
}

/** 3 for excellent down to 0 for poor: the quality sparkline's y value. */
export function qualityRank(level: QualityLevel | null): number | null {
  return level === null ? null : QUALITY_LEVELS.length - 1 - QUALITY_LEVELS.indexOf(level);
}
