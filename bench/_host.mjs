/**
 * The phone a benchmark's "4×" stands for, the same on every host. Lighthouse's default CPU
 * slowdown (4×) turns a high-end desktop, benchmarkIndex about 1750, into a mid-tier phone
 * (Lighthouse's docs/throttling.md); a slower host needs less: 4 × index / 1750, at least 1×.
 * The index is Lighthouse's own (`computeBenchmarkIndex`, a page function), read in the
 * browser under test. Not a benchmark itself (run.mjs skips files named _*.mjs).
 */
import { pageFunctions } from 'lighthouse/core/lib/page-functions.js';

/** Lighthouse's default slowdown and the benchmarkIndex of the host it is meant for. */
export const PHONE = { slowdown: 4, hostIndex: 1750 };

/** The slowdown that makes this host (`benchmarkIndex`) what `nominal`× makes of Lighthouse's desktop; 1× is the host itself. */
export function phoneSlowdown(nominal, benchmarkIndex) {
  if (nominal <= 1) return 1;
  return Number(Math.max(1, (nominal * benchmarkIndex) / PHONE.hostIndex).toFixed(2));
}

/** This host's benchmarkIndex, the median of `runs` readings in fresh pages of `browser` (about 1 s each). */
export async function hostBenchmarkIndex(browser, runs = 3) {
  const readings = [];
  for (let i = 0; i < runs; i++) {
    const page = await browser.newPage();
    try {
      readings.push(await page.evaluate(pageFunctions.computeBenchmarkIndex));
    } finally {
      await page.close();
    }
  }
  readings.sort((a, b) => a - b);
  return { index: readings[Math.floor(readings.length / 2)], readings };
}
