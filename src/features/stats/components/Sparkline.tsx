import { memo, useMemo } from 'react';
import './Sparkline.css';

export interface SparklineProps {
  /** Oldest first; null is a gap (no figure for that interval). */
  values: readonly (number | null)[];
  /** Fixed top of the scale (e.g. 3 for quality ranks); otherwise the largest value shown. */
  max?: number;
  /** The most points drawn (older ones are dropped); the newest point is always at the right edge. */
  capacity?: number;
  /** The fewest points the width is divided for: 6 samples (30 s) by default. */
  minSpan?: number;
  width?: number;
  height?: number;
}

/**
 * An SVG path through the last `capacity` points, scaled from 0 to max, the
 * newest at the right edge. The width holds at least `minSpan` points: early in
 * a session three samples still make a line that can be read, not a speck, and
 * the line fills the width once there are that many. A point with no neighbour
 * is drawn as a dot (a zero-length segment with round caps). Pure, so it is
 * computed once per new sample and never on other renders.
 */
export function sparkPath(
  values: readonly (number | null)[],
  width: number,
  height: number,
  capacity: number,
  max?: number,
  minSpan: number = capacity,
): string {
  const shown = values.slice(-capacity);
  const drawn = (v: number | null | undefined): v is number => v !== null && v !== undefined && Number.isFinite(v);
  const known = shown.filter(drawn);
  if (!known.length) return '';
  const top = max ?? Math.max(...known);
  const scale = top > 0 ? top : 1;
  const span = Math.min(capacity, Math.max(shown.length, minSpan));
  const step = span > 1 ? width / (span - 1) : 0;
  const pad = 1;
  let d = '';
  shown.forEach((v, i) => {
    if (!drawn(v)) return;
    const x = width - (shown.length - 1 - i) * step;
    const y = pad + (height - 2 * pad) * (1 - Math.min(Math.max(v, 0), scale) / scale);
    const joined = drawn(shown[i - 1]);
    d += `${joined ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`;
    if (!joined && !drawn(shown[i + 1])) d += 'h0';
  });
  return d;
}

/** A small trend line beside a value; decorative (the value itself is the accessible information). */
export const Sparkline = memo(function Sparkline({ values, max, capacity = 60, minSpan = 6, width = 64, height = 14 }: SparklineProps) {
  const d = useMemo(() => sparkPath(values, width, height, capacity, max, minSpan), [values, width, height, capacity, max, minSpan]);
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-hidden="true" focusable="false">
      {d && <path d={d} />}
    </svg>
  );
});
