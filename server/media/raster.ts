/**
 * A tiny anti-aliased rasteriser: shapes are signed-distance functions (negative inside, in
 * pixels) painted into a float RGB buffer. Enough to draw a friendly cartoon bust without a
 * canvas library; every shape is evaluated only inside its bounding box to keep start-up cheap.
 */
export type Rgb = readonly [number, number, number];
export type Sdf = (x: number, y: number) => number;
export type Shader = (x: number, y: number) => Rgb;
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export class Raster {
  readonly data: Float32Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.data = new Float32Array(width * height * 3);
  }

  clone(): Raster {
    const copy = new Raster(this.width, this.height);
    copy.data.set(this.data);
    return copy;
  }

  /** Paints every pixel with a colour that depends on its position (backgrounds). */
  shade(shader: Shader): void {
    for (let y = 0; y < this.height; y++) {
      for (let x = 0; x < this.width; x++) {
        const [r, g, b] = shader(x + 0.5, y + 0.5);
        const i = (y * this.width + x) * 3;
        this.data[i] = r;
        this.data[i + 1] = g;
        this.data[i + 2] = b;
      }
    }
  }

  /** Blends `paint` into the pixels covered by `sdf` (one-pixel soft edge), limited to `box`. */
  fill(box: Box, sdf: Sdf, paint: Rgb | Shader, opacity = 1): void {
    const x0 = Math.max(0, Math.floor(box.x0));
    const y0 = Math.max(0, Math.floor(box.y0));
    const x1 = Math.min(this.width, Math.ceil(box.x1));
    const y1 = Math.min(this.height, Math.ceil(box.y1));
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const px = x + 0.5;
        const py = y + 0.5;
        const coverage = clamp01(0.5 - sdf(px, py)) * opacity;
        if (coverage <= 0) continue;
        const [r, g, b] = typeof paint === 'function' ? paint(px, py) : paint;
        const i = (y * this.width + x) * 3;
        const d = this.data;
        d[i] = (d[i] ?? 0) + (r - (d[i] ?? 0)) * coverage;
        d[i + 1] = (d[i + 1] ?? 0) + (g - (d[i + 1] ?? 0)) * coverage;
        d[i + 2] = (d[i + 2] ?? 0) + (b - (d[i + 2] ?? 0)) * coverage;
      }
    }
  }
}

export function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  const k = clamp01(t);
  return [a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k, a[2] + (b[2] - a[2]) * k];
}

export function hex(value: string): Rgb {
  const n = Number.parseInt(value.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function boxAround(cx: number, cy: number, rx: number, ry: number, pad = 2): Box {
  return { x0: cx - rx - pad, y0: cy - ry - pad, x1: cx + rx + pad, y1: cy + ry + pad };
}

/** Approximate signed distance to an ellipse (exact for circles, good to a pixel for our sizes). */
export function ellipse(cx: number, cy: number, rx: number, ry: number): Sdf {
  return (x, y) => {
    const px = (x - cx) / rx;
    const py = (y - cy) / ry;
    const k0 = Math.hypot(px, py);
    const k1 = Math.hypot(px / rx, py / ry);
    return k1 === 0 ? -Math.min(rx, ry) : (k0 * (k0 - 1)) / k1;
  };
}

/** An ellipse whose lower half narrows towards `taper` of its width: a face with a softer chin. */
export function egg(cx: number, cy: number, rx: number, ry: number, taper: number): Sdf {
  return (x, y) => {
    const below = Math.max(0, (y - cy) / ry);
    const w = rx * (1 - (1 - taper) * below * below);
    return ellipse(cx, cy, w, ry)(x, y);
  };
}

export function roundedRect(cx: number, cy: number, hw: number, hh: number, r: number): Sdf {
  return (x, y) => {
    const qx = Math.abs(x - cx) - hw + r;
    const qy = Math.abs(y - cy) - hh + r;
    return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
  };
}

/** A stroke along an ellipse outline, kept only where `keep` is true (e.g. the lower half for a smile). */
export function arc(cx: number, cy: number, rx: number, ry: number, thickness: number, keep: (x: number, y: number) => boolean): Sdf {
  const outline = ellipse(cx, cy, rx, ry);
  return (x, y) => (keep(x, y) ? Math.abs(outline(x, y)) - thickness / 2 : 1e9);
}

/** Triangle with corners a, b, c (any winding). */
export function triangle(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): Sdf {
  const edges: Array<[number, number, number, number]> = [
    [ax, ay, bx, by],
    [bx, by, cx, cy],
    [cx, cy, ax, ay],
  ];
  const sign = Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)) || 1;
  return (x, y) => {
    let dist = Infinity;
    let inside = true;
    for (const [x0, y0, x1, y1] of edges) {
      const ex = x1 - x0;
      const ey = y1 - y0;
      const t = clamp01(((x - x0) * ex + (y - y0) * ey) / (ex * ex + ey * ey));
      dist = Math.min(dist, Math.hypot(x - x0 - ex * t, y - y0 - ey * t));
      if (sign * (ex * (y - y0) - ey * (x - x0)) < 0) inside = false;
    }
    return inside ? -dist : dist;
  };
}

export const intersect =
  (...sdfs: Sdf[]): Sdf =>
  (x, y) =>
    sdfs.reduce((d, f) => Math.max(d, f(x, y)), -Infinity);

export const union =
  (...sdfs: Sdf[]): Sdf =>
  (x, y) =>
    sdfs.reduce((d, f) => Math.min(d, f(x, y)), Infinity);

export const subtract =
  (a: Sdf, b: Sdf): Sdf =>
  (x, y) =>
    Math.max(a(x, y), -b(x, y));
