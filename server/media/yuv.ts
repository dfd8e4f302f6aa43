/** Pixel format conversions from the float RGB raster to what ffmpeg reads. */
import type { Raster } from './raster.ts';

/** BT.601 limited-range planar YUV 4:2:0, what ffmpeg's rawvideo yuv420p and browsers assume. */
export function toI420(r: Raster): Buffer {
  const { width: w, height: h, data } = r;
  const out = Buffer.alloc((w * h * 3) / 2);
  const u0 = w * h;
  const v0 = u0 + (w * h) / 4;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      const [R, G, B] = [(data[i] ?? 0) / 255, (data[i + 1] ?? 0) / 255, (data[i + 2] ?? 0) / 255];
      out[y * w + x] = Math.round(16 + 65.481 * R + 128.553 * G + 24.966 * B);
    }
  }
  for (let y = 0; y < h / 2; y++) {
    for (let x = 0; x < w / 2; x++) {
      let R = 0;
      let G = 0;
      let B = 0;
      for (const [ox, oy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const i = ((2 * y + oy) * w + 2 * x + ox) * 3;
        R += (data[i] ?? 0) / 1020;
        G += (data[i + 1] ?? 0) / 1020;
        B += (data[i + 2] ?? 0) / 1020;
      }
      out[u0 + y * (w / 2) + x] = Math.round(128 - 37.797 * R - 74.203 * G + 112 * B);
      out[v0 + y * (w / 2) + x] = Math.round(128 + 112 * R - 93.786 * G - 18.214 * B);
    }
  }
  return out;
}

export function toRgb24(r: Raster): Buffer {
  const out = Buffer.alloc(r.width * r.height * 3);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(Math.min(255, Math.max(0, r.data[i] ?? 0)));
  return out;
}
