import { memo, useMemo } from 'react';
import './Sparkline.css';

export interface SparklineProps {
  /** Oldest first; null is a gap (no figure for that interval). */
  values: readonly (number | null)[];
  /** Fixed top of the scale (e.g. 3 for quality ranks); otherwise the largest value shown. */
  max?: number;
  /** How many points the full width holds: the newest point is always at the right edge. */
  capacity?: number;
  width?: number;
  height?: number;
}

/**
 * An SVG path through up to `capacity` points, scaled from 0 to max. Pure, so
 * it is computed once per new sample and never on other renders.
 */
export function sparkPath(values: readonly (number | null)[], width: number, height: number, capacity: number, max?: number): string {
  const shown = values.slice(-capacity);
  const known = shown.filter((v): v is number => v !== null && Number.isFinite(v));
  if (!known.length) return '';
  const top = max ?? Math.max(...known);
  const scale = top > 0 ? top : 1;
  const step = capacity > 1 ? width / (capacity - 1) : 0;
  const pad = 1;
  let d = '';
  let pen = false;
  shown.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      pen = false;
      return;
    }
    const x = width - (shown.length - 1 - i) * step;
    const y = pad + (height - 2 * pad) * (1 - Math.min(Math.max(v, 0), scale) / scale);
    d += `${pen ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`;
    pen = true;
  });
  return d;
}

/** A small trend line beside a value; decorative (the value itself is the accessible information). */
export const Sparkline = memo(function Sparkline({ values, max, capacity = 60, width = 64, height = 18 }: SparklineProps) {
  const d = useMemo(() => sparkPath(values, width, height, capacity, max), [values, width, height, capacity, max]);
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-hidden="true" focusable="false">
      {d && <path d={d} />}
    </svg>
  );
});
