/**
 * Goal `recorder-share`: recording the session log costs under 1% of the main
 * thread's wall time in a 5-minute live session.
 *
 * A real session in headless Chromium against the stand-in, with the real
 * build (`--mode standin`, source maps on): live from the Start chat tap for
 * BENCH_SESSION_S seconds (default 300), the stats panel on (a sample every
 * 5 s), a typed question every 60 s and an avatar reply via /__standin/say
 * every 30 s. The page's main thread is profiled by V8's sampling profiler
 * through the DevTools protocol, so the product needs no instrumentation.
 *
 * Each sample is attributed through the build's source maps:
 *   recorder   any frame in src/features/sessionLog/ (recorder, persistence,
 *              redaction, ring, logger sink), or the session log middleware
 *              being the innermost app frame (its own work, not the reducers
 *              and sagas it hands the action to)
 *   export     exportLog.ts (the download at the end: on demand, not recording)
 *   app JS     any frame from the app's bundle
 *   busy       every sample but (idle)
 * and reported as ratios against the references of the same run: the wall
 * time profiled, the busy main-thread time and the app's JS time. Garbage
 * collection cannot be attributed; its total share is printed beside.
 *
 *   node bench/session-log-cost.mjs     (BENCH_SKIP_BUILD=1 reuses the last build,
 *                                         BENCH_SAVE_PROFILE=file.cpuprofile keeps the profile,
 *                                         BENCH_PREFILL=4900 starts with a nearly full ring: the worst case)
 *   node bench/session-log-cost.mjs --quick  a 60 s session (BENCH_QUICK=1 too): checks the wiring
 * Writes bench/results/session-log-cost.json (bench/_report.mjs); exit 1 when recorder / wall
 * time ≥ 1%, 2 when it could not measure.
 */
/* global window, document */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { buildApp, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { attribute } from './_cpu-profile.mjs';
import { isQuick, runBench } from './_report.mjs';

const BUDGET = 0.01;
const SESSION_S = Number(process.env.BENCH_SESSION_S ?? (isQuick() ? 60 : 300));
const SAMPLING_US = 200;
/** Entries already in this tab's log when the page loads (worst case: a full 5,000-entry ring); 0 by default. */
const PREFILL = Number(process.env.BENCH_PREFILL ?? 0);
// Its own build: the attribution reads this build's source maps, which another bench's rebuild would replace.
const OUT_DIR = join(ROOT, '.cache', 'bench-dist-session-log');

const build = () => buildApp(OUT_DIR);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const QUESTIONS = ['what are your opening hours', 'where is the nearest store', 'tell me about the discount', 'show me the new products'];

async function post(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url}: HTTP ${response.status} ${await response.text()}`);
}

/** Why a session is not live any more, from the page itself: its alert and the last entries of its session log. */
async function whyNotLive(page) {
  return page.evaluate(() => {
    const alert = document.querySelector('[role="alert"]')?.textContent ?? 'none';
    const stored = JSON.parse(window.sessionStorage.getItem('sessionLog') ?? '{"entries":[]}');
    const last = stored.entries.slice(-8).map((e) => `${e.t} ${e.kind} ${JSON.stringify(e.action ?? e.data ?? '').slice(0, 120)}`);
    return `alert: ${alert}; last log entries:\n    ${last.join('\n    ')}`;
  });
}

/** The session's traffic: a reply every 30 s, a typed question every 60 s, until `seconds` have passed. */
async function drive(page, base, seconds) {
  const end = Date.now() + seconds * 1000;
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  const endChat = page.getByRole('button', { name: 'End chat', exact: true });
  for (let tick = 1; Date.now() < end; tick += 1) {
    await sleep(Math.min(30_000, end - Date.now()));
    // A session that ended on its own would measure an idle page: stop and say why.
    if (!(await endChat.isEnabled())) throw new Error(`the session ended within ${tick * 30} s; ${await whyNotLive(page)}`);
    if (Date.now() >= end) break;
    await post(`${base}/__standin/say`, { text: `Reply number ${tick}: our stores are open every day.`, related: ['Opening hours', 'Discounts'] });
    if (tick % 2 === 0) {
      await box.fill(QUESTIONS[(tick / 2) % QUESTIONS.length], { timeout: 5000 });
      await box.press('Enter');
    }
  }
}

/**
 * A stored log of `count` entries in the recorder's sessionStorage format, as a tab that already had a long session
 * holds: stats samples, avatar replies, requests and log lines. The recorder continues it, so from the first action on
 * each new entry evicts one (rolling the base state through the reducer) and each write carries the full ring.
 */
function storedLog(count) {
  const now = Date.now();
  const entries = [{ seq: 0, t: 0, kind: 'store', state: null, reload: false }];
  const kinds = [
    (seq, t) => ({ seq, t, kind: 'action', action: { type: 'stats/statsSampled', payload: { upKbps: 1.4, downKbps: 412.6 + (seq % 50), lossPct: 0, jitterMs: 9, rttMs: 1, quality: 'fair' } } }),
    (seq, t) => ({ seq, t, kind: 'action', action: { type: 'signaling/messageReceived', payload: { msg_type: 'tts', msg_id: `r-${seq}`, text: `Reply ${seq}: our stores are open every day from ten in the morning to nine in the evening.` } } }),
    (seq, t) => ({ seq, t, kind: 'request', data: { feature: 'http', method: 'GET', url: '/api/v1/streams/?count=100', status: 200, outcome: 'ok', ms: 12 } }),
    (seq, t) => ({ seq, t, kind: 'log', data: { feature: 'signaling', level: 'info', message: 'socket closed', data: { code: 1000, reason: '' } } }),
  ];
  for (let seq = 1; seq < count; seq += 1) entries.push(kinds[seq % kinds.length](seq, seq * 60));
  const last = entries.at(-1).t;
  return JSON.stringify({ v: 1, startedAt: now - last - 1000, dropped: 0, nextSeq: count, base: null, entries });
}

async function measure(browser, base) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US', acceptDownloads: true });
  if (PREFILL > 0) {
    await context.addInitScript((text) => {
      if (window.sessionStorage.getItem('sessionLog') === null) window.sessionStorage.setItem('sessionLog', text);
    }, storedLog(PREFILL));
  }
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_US });
    let started = 0;
    // On a loaded machine a start can miss the client's own 15 s limit: that is not what this measures, so try again.
    for (let attempt = 1; ; attempt += 1) {
      await page.goto(`${base}/25d/demo?showBitrate=1`);
      const start = page.getByRole('button', { name: 'Start chat', exact: true });
      await start.waitFor({ state: 'visible', timeout: 60_000 });
      await cdp.send('Profiler.start');
      started = Date.now();
      await start.click();
      const live = await page.getByRole('button', { name: 'End chat', exact: true }).waitFor({ state: 'visible', timeout: 30_000 }).then(
        () => true,
        () => false,
      );
      if (live) break;
      await cdp.send('Profiler.stop');
      if (attempt === 3) throw new Error('the session did not go live in 3 attempts');
      console.log(`  attempt ${attempt}: the session did not go live; trying again. ${await whyNotLive(page)}`);
    }
    console.log(`  live after ${((Date.now() - started) / 1000).toFixed(1)} s; driving the session for ${SESSION_S} s from the tap`);
    await drive(page, base, SESSION_S - (Date.now() - started) / 1000);
    // The download is on demand, not recording: it is profiled and reported apart.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download session log', exact: true }).click()]);
    const log = JSON.parse(readFileSync(await download.path(), 'utf8'));
    await sleep(500);
    const { profile } = await cdp.send('Profiler.stop');
    const storage = await page.evaluate(() => window.sessionStorage.getItem('sessionLog')?.length ?? 0);
    await page.getByRole('button', { name: 'End chat', exact: true }).click();
    await page.getByRole('button', { name: 'Start chat', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
    return { profile, log, storage };
  } finally {
    await context.close();
  }
}

const pct = (part, whole) => `${((100 * part) / whole).toFixed(3)}%`;
const ms = (us) => `${(us / 1000).toFixed(0)} ms`;
/** µs → ms, rounded to 0.1 ms. */
const toMs = (us) => Number((us / 1000).toFixed(1));
/** A share in %, to 4 decimals: the goal is 1 % and today's figure is a few hundredths of one. */
const share = (part, whole) => Number(((100 * part) / whole).toFixed(4));

await runBench('session-log-cost', { what: 'main-thread time spent in the session-log recorder over a live session', chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { sessionSeconds: SESSION_S, samplingUs: SAMPLING_US, prefill: PREFILL };
  build();
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  let result;
  try {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      result = await measure(browser, standin.url);
    } finally {
      await browser.close();
    }
  } finally {
    await standin.stop();
  }

  const { profile, log, storage } = result;
  // BENCH_SAVE_PROFILE=file.cpuprofile keeps the profile, to open in Chromium's DevTools (Performance panel).
  if (process.env.BENCH_SAVE_PROFILE) writeFileSync(process.env.BENCH_SAVE_PROFILE, JSON.stringify(profile));
  const t = attribute(profile, join(OUT_DIR, 'assets'));
  if (t.samples === 0) throw new Error('the CPU profile holds no sample');
  const kinds = {};
  for (const e of log.entries) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
  report.figures = {
    logEntries: log.entries.length,
    entriesByKind: kinds,
    sessionStorageKiB: Number((storage / 1024).toFixed(1)),
    profile: { wallMs: toMs(t.wall), busyMs: toMs(t.busy), appJsMs: toMs(t.app), gcMs: toMs(t.gc), samples: t.samples, unmappedAppFrames: t.unmapped.size },
    recorderMs: toMs(t.recorder),
    recorderSamples: t.recorderSamples,
    recorderByFileMs: Object.fromEntries(Object.entries(t.byFile).sort((a, b) => b[1] - a[1]).map(([f, v]) => [f, toMs(v)])),
    exportMs: toMs(t.export),
  };
  report.goal('recorder-share', { label: 'session-log recorder / main-thread wall time', value: share(t.recorder, t.wall), limit: BUDGET * 100, cmp: '<', unit: '%', digits: 3 });
  report.ratio('recorder-vs-busy', { label: 'recorder / the main thread\'s busy time, same profile', subject: ['recorder', toMs(t.recorder)], reference: ['busy', toMs(t.busy)], unit: 'ms', digits: 4 });
  report.ratio('recorder-vs-app', { label: 'recorder / the app\'s own JavaScript time, same profile', subject: ['recorder', toMs(t.recorder)], reference: ['app JS', toMs(t.app)], unit: 'ms', digits: 4 });
  report.table('Main thread over the session (sampling CPU profile)', ['figure', 'value'], [
    ['profiled (wall)', ms(t.wall)],
    ['busy / app JS / GC', `${ms(t.busy)} / ${ms(t.app)} / ${ms(t.gc)}`],
    ['**recorder**', `**${ms(t.recorder)}** = ${pct(t.recorder, t.wall)} of wall, ${pct(t.recorder, t.busy)} of busy, ${pct(t.recorder, t.app)} of app JS`],
    ['recorder by file', Object.entries(t.byFile).sort((a, b) => b[1] - a[1]).map(([f, v]) => `${f} ${ms(v)}`).join(', ') || 'none'],
    ['export (one download at the end, not recording)', `${ms(t.export)} = ${pct(t.export, t.wall)} of wall`],
    ['log', `${log.entries.length} entries (${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}), ${(storage / 1024).toFixed(0)} KiB in sessionStorage`],
  ]);
  if (t.unmapped.size > 0) report.note(`${t.unmapped.size} app frames had no source in the build's source maps: their time counts as app JS, not as the recorder's.`);

  console.log(`session-log-cost: a ${SESSION_S} s live session in Chromium, main thread sampled every ${SAMPLING_US} µs` + (PREFILL ? `, the tab's log prefilled with ${PREFILL} entries` : ''));
  console.log(`  log: ${log.entries.length} entries (${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}), ${(storage / 1024).toFixed(0)} KiB in sessionStorage`);
  console.log(`  profiled ${ms(t.wall)}, busy ${ms(t.busy)}, app JS ${ms(t.app)}, GC ${ms(t.gc)}; ${t.samples} samples, ${t.unmapped.size} app frames without a source`);
  console.log(`  recorder ${ms(t.recorder)} (${t.recorderSamples} samples), by file: ${Object.entries(t.byFile).sort((a, b) => b[1] - a[1]).map(([f, v]) => `${f} ${ms(v)}`).join(', ') || 'none'}`);
  console.log(`  export (one download at the end) ${ms(t.export)} = ${pct(t.export, t.wall)} of wall time`);
});
