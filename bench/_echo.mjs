/**
 * What the echo benchmarks share (bench/echo.mjs, bench/capture.mjs): where speech starts in
 * a fixture, the word accuracy of what was sent, and a page script that notes every signaling
 * frame the app sends. A helper, not a benchmark (bench/run.mjs skips files named _*.mjs).
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { readFileSync } from 'node:fs';

/** Where speech starts in a 16 kHz 16-bit WAV: the first 10 ms window above −40 dBFS (ms). */
export function onsetMs(file) {
  const data = readFileSync(file).subarray(44);
  const window = 160;
  for (let start = 0; start + window * 2 <= data.length; start += window * 2) {
    let sum = 0;
    for (let i = 0; i < window; i += 1) sum += (data.readInt16LE(start + 2 * i) / 32768) ** 2;
    if (Math.sqrt(sum / window) > 0.01) return (start / 2 / 16_000) * 1000;
  }
  throw new Error(`no speech in ${file}`);
}

const words = (text) => text.toLowerCase().replace(/[^\p{L}\p{N}\s']/gu, ' ').split(/\s+/).filter(Boolean);

/** 1 − word error rate (Levenshtein over words), at least 0. */
export function wordAccuracy(expected, heard) {
  const a = words(expected);
  const b = words(heard);
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) d[0][j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return Math.max(0, 1 - d[a.length][b.length] / a.length);
}

/** Runs in the page: notes every signaling frame the app sends, on the Date.now() clock. */
export function sentFrames() {
  const sent = [];
  Object.defineProperty(window, '__sent', { value: sent });
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try {
      if (typeof data === 'string') sent.push({ t: Date.now(), frame: JSON.parse(data) });
    } catch {
      // not JSON: not a signaling frame
    }
    return send.call(this, data);
  };
}
