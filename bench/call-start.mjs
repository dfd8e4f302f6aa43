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
 * load by the minute). Budget: the subject's median at most 500 ms.
 *
 *   node bench/call-start.mjs          BENCH_ROUNDS=3, BENCH_SKIP_BUILD=1 reuses the build
 */
// Functions passed to page.evaluate run in the browser.
/* global window, document, MutationObserver, Element */
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { buildApp, CHROMIUM_ARGS, ROOT, startStandin } from './_setup.mjs';

const BUDGET_MS = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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

buildApp(OUT_DIR);
const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
const kept = { first: [], second: [] };
const cold = [];
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const [first, second] = await subject(browser, standin.url);
    kept.first.push(first);
    kept.second.push(second);
    cold.push(await reference(browser, standin.url));
    console.log(`  round ${round + 1}: kept detector ${Math.round(first)} / ${Math.round(second)} ms, loading it ${Math.round(cold.at(-1))} ms`);
  }
} finally {
  await browser.close();
  await standin.stop();
}

const subjectMedian = median([...kept.first, ...kept.second]);
const referenceMedian = median(cold);
console.log(`call-start  Start call tap → Hang up shown, ${ROUNDS} rounds, warm cache`);
console.log(`  kept detector: median ${Math.round(subjectMedian)} ms (first call of a page ${Math.round(median(kept.first))}, second ${Math.round(median(kept.second))})`);
console.log(`  loading the detector in the call (reference): median ${Math.round(referenceMedian)} ms`);
console.log(`  ratio ${(subjectMedian / referenceMedian).toFixed(3)}; budget ${BUDGET_MS} ms: ${subjectMedian <= BUDGET_MS ? 'met' : 'MISSED'}`);
process.exitCode = subjectMedian <= BUDGET_MS ? 0 : 1;
