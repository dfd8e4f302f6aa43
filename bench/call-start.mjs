/**
 * Start call → call mode: from the tap on Start call to the Hang up button, in a live
 * session whose voice assets are already fetched (a warm cache).
 *
 * Subject: the app as it is: the session's voice detector (VAD worker, onnxruntime wasm,
 * model) was loaded in the background once the avatar played, and the call takes it.
 * Reference, in the same run: a call that has to load the detector itself, which is what
 * every call cost before the detector was kept: the worker script is held back by the
 * bench until the tap (the model and the wasm are fetched and cached as usual).
 *
 * Rounds alternate subject and reference, each in a fresh page (the shared 2 cores change
 * load by the minute). Goal `median`: the subject's median at most 500 ms; the ratio to
 * the reference is reported beside it.
 *
 *   node bench/call-start.mjs          BENCH_ROUNDS=3, BENCH_SKIP_BUILD=1 reuses the build
 *   node bench/call-start.mjs --quick  one round (BENCH_QUICK=1 too): checks the wiring
 * Writes bench/results/call-start.json (bench/_report.mjs); exit 1 on a missed goal, 2 when
 * it could not measure.
 */
// Functions passed to page.evaluate run in the browser.
/* global window, document, MutationObserver, Element */
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { buildApp, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';

const BUDGET_MS = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (isQuick() ? 1 : 3));
/** After the session is live: ample time for the detector to load in the background here. */
const SETTLE_MS = 15_000;
const OUT_DIR = join(ROOT, '.cache', 'bench-dist-call');
const WORKER_SCRIPT = /\/assets\/vad\.worker-[^/]*\.js$/;

/** Runs in the page: the tap's time and when Hang up appeared, on the performance clock. */
function callProbe() {
  const bench = { tap: undefined, entered: undefined };
  window.__call = bench;
  document.addEventListener(
    'click',
    (event) => {
      if (event.target instanceof Element && event.target.closest('[aria-label="Start call"]')) bench.tap = event.timeStamp;
    },
    { capture: true },
  );
  new MutationObserver(() => {
    if (bench.tap !== undefined && bench.entered === undefined && document.querySelector('[aria-label="Hang up"]')) {
      bench.entered = performance.now();
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true });
}

async function goLive(page, base) {
  await page.goto(`${base}/25d/demo`);
  await page.getByRole('button', { name: 'Start chat', exact: true }).click({ timeout: 60_000 });
  await page.getByRole('button', { name: 'End chat', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
  await page.waitForFunction(() => !document.querySelector('.live[inert]'), null, { timeout: 60_000 });
  await page.waitForTimeout(SETTLE_MS);
}

/** One call: tap → Hang up (ms), then hang up. `beforeTap` runs just before the tap. */
async function timeCall(page, beforeTap = () => {}) {
  await page.evaluate(() => Object.assign(window.__call, { tap: undefined, entered: undefined }));
  beforeTap();
  await page.getByRole('button', { name: 'Start call', exact: true }).click();
  await page.getByRole('button', { name: 'Hang up', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
  await page.waitForFunction(() => window.__call.entered !== undefined, null, { timeout: 10_000 });
  const { tap, entered } = await page.evaluate(() => window.__call);
  await page.getByRole('button', { name: 'Hang up', exact: true }).click();
  await page.getByRole('button', { name: 'Start call', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(1000);
  return entered - tap;
}

async function inPage(browser, base, fn) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => window.localStorage.setItem('lang', 'en'));
    return await fn(page);
  } finally {
    await context.close();
  }
}

/** The app as it is: two calls in a row, both with the kept detector. */
const subject = (browser, base) =>
  inPage(browser, base, async (page) => {
    await goLive(page, base);
    await page.evaluate(callProbe);
    return [await timeCall(page), await timeCall(page)];
  });

/** A call that loads the detector itself: the worker script only comes after the tap. */
const reference = (browser, base) =>
  inPage(browser, base, async (page) => {
    let release = () => {};
    const gate = new Promise((resolve) => (release = resolve));
    await page.route(WORKER_SCRIPT, async (route) => {
      await gate;
      await route.continue();
    });
    await goLive(page, base);
    await page.evaluate(callProbe);
    return timeCall(page, release);
  });

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

await runBench('call-start', { what: 'Start call tap → Hang up shown, warm cache, the session\'s detector kept vs loaded by the call', chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { rounds: ROUNDS, settleMs: SETTLE_MS, viewport: '390×844' };
  buildApp(OUT_DIR);
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  const kept = { first: [], second: [] };
  const cold = [];
  report.figures = { keptFirstMs: kept.first, keptSecondMs: kept.second, loadingMs: cold };
  try {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        const [first, second] = await subject(browser, standin.url);
        kept.first.push(Math.round(first));
        kept.second.push(Math.round(second));
        cold.push(Math.round(await reference(browser, standin.url)));
        console.log(`  round ${round + 1}: kept detector ${kept.first.at(-1)} / ${kept.second.at(-1)} ms, loading it ${cold.at(-1)} ms`);
      }
    } finally {
      await browser.close();
    }
  } finally {
    await standin.stop();
  }

  const subjectMedian = median([...kept.first, ...kept.second]);
  const referenceMedian = median(cold);
  Object.assign(report.figures, { keptMedianMs: subjectMedian, keptFirstMedianMs: median(kept.first), keptSecondMedianMs: median(kept.second), loadingMedianMs: referenceMedian });
  report.goal('median', { label: 'Start call tap → Hang up shown, kept detector, median of every call', value: subjectMedian, limit: BUDGET_MS, unit: 'ms' });
  report.ratio('kept-vs-loading', {
    label: 'kept detector / a call that loads the detector itself (medians)',
    subject: ['kept detector', subjectMedian],
    reference: ['the call loads the detector', referenceMedian],
    unit: 'ms',
  });
  const ms = (v) => `${Math.round(v)} ms`;
  report.table(
    'Start call tap → Hang up shown',
    ['', ...cold.map((_, i) => `round ${i + 1}`), 'median'],
    [
      ['kept detector, first / second call of the page', ...kept.first.map((v, i) => `${v} / ${kept.second[i]} ms`), ms(subjectMedian)],
      ['reference: the call loads the detector', ...cold.map(ms), ms(referenceMedian)],
    ],
  );
});
