#!/usr/bin/env node
/**
 * Chat log smoothness (issue 4): a long log with images must scroll without
 * dropped frames on a 4× CPU throttle, and a flood of parts must not freeze
 * the page.
 *
 * Runs the built app (dist/, `npm run build:local`) against a fresh
 * stand-in on a free port in headless Chromium at 390×844, starts a chat, then
 * fills the log through the real signaling socket: the stand-in's frames pass
 * through untouched and the bench adds its own (Playwright routeWebSocket).
 *
 * Every figure is printed with the same measurement of a reference made in the
 * same run (50 messages; 100 parts), as a ratio, so the numbers compare across
 * machines: absolute milliseconds on a shared 2-core box mean little. The
 * scroll figures are medians of alternating rounds (reference, subject, ...).
 *
 *   node bench/chat-scroll.mjs [--messages 500] [--reference 50] [--parts 1000] [--reference-parts 100]
 *                              [--rate 4] [--rounds 3] [--travel 3000] [--no-flood] [--json]
 */
// The functions passed to page.evaluate run in the page, where these exist.
/* global window, document, requestAnimationFrame */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';

const { values: opts } = parseArgs({
  options: {
    messages: { type: 'string', default: '500' },
    reference: { type: 'string', default: '50' },
    parts: { type: 'string', default: '1000' },
    'reference-parts': { type: 'string', default: '100' },
    rate: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    travel: { type: 'string', default: '3000' },
    json: { type: 'boolean', default: false },
    'no-flood': { type: 'boolean', default: false },
  },
});
const MESSAGES = Number(opts.messages);
const REFERENCE = Number(opts.reference);
const PARTS = Number(opts.parts);
const REFERENCE_PARTS = Number(opts['reference-parts']);
const RATE = Number(opts.rate);
const ROUNDS = Number(opts.rounds);
const FRAME_MS = 1000 / 60;
const TRAVEL_PX = Number(opts.travel);

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
];

/** Starts the stand-in on a free port; resolves with its origin once /healthz answers. */
async function startStandin() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', STANDIN_ENV: 'local', STANDIN_QUIET: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('stand-in did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`stand-in exited with code ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  for (const deadline = Date.now() + 60_000; ; ) {
    if (await fetch(`${origin}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error('stand-in /healthz did not turn 200');
    await new Promise((r) => setTimeout(r, 250));
  }
  // An interrupted bench must not leave a stand-in behind.
  const stop = () => child.exitCode === null && child.kill('SIGTERM');
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
  return { origin, stop };
}

/** A live chat page whose signaling socket the bench can add frames to. */
async function openChat(browser, origin) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
  const page = await context.newPage();
  await page.addInitScript(() => window.localStorage.setItem('lang', 'en'));
  let toPage = null;
  await page.routeWebSocket(/\/ws\/signaling/, (ws) => {
    ws.connectToServer();
    toPage = (frame) => ws.send(JSON.stringify(frame));
  });
  await page.goto(`${origin}/25d/demo`);
  // Setup, not measurement: on a loaded machine a start can miss its 15 s deadline; try again.
  for (let attempt = 1; ; attempt += 1) {
    await page.getByRole('button', { name: 'Start chat' }).click();
    const live = await page
      .getByRole('button', { name: 'End chat' })
      .waitFor({ state: 'visible', timeout: 45_000 })
      .then(() => true, () => false);
    if (live) break;
    if (attempt === 3) throw new Error('the chat did not start in 3 attempts');
    await page.getByRole('button', { name: 'Start chat' }).waitFor({ timeout: 30_000 });
  }
  await page.waitForFunction(() => !document.querySelector('.live[inert]'), null, { timeout: 60_000 });
  if (!toPage) throw new Error('the signaling socket was not seen');
  const cdp = await context.newCDPSession(page);
  return { page, context, cdp, send: (frame) => toPage(frame) };
}

/** Half visitor questions, half replies with text and an image; waits until the log shows them all. */
async function fillLog(chat, origin, count) {
  const images = ['store-front', 'new-products', 'discount-poster'].map((n) => `${origin}/assets-standin/images/${n}.png`);
  for (let i = 0; i < count; i += 1) {
    if (i % 2 === 0) chat.send({ msg_type: 'asr', msg_id: `bench-q-${i}`, text: `Question number ${i}: where is the nearest store?` });
    else {
      const id = `bench-r-${i}`;
      chat.send({ msg_type: 'tts', msg_id: id, text: `Answer ${i}. Our flagship store is at one Harbour Road, next to Central Station.` });
      chat.send({ msg_type: 'tts', msg_id: id, image_url: `${images[i % 3]}?n=${i}` });
      chat.send({ msg_type: 'command', command: 'nlp_end', msg_id: id });
    }
  }
  try {
    await chat.page.waitForFunction((n) => document.querySelectorAll('[role="log"] li').length >= n, count, { timeout: 120_000 });
  } catch (error) {
    await chat.page.screenshot({ path: 'test-results/bench-chat-scroll-failure.png' });
    const shown = await chat.page.evaluate(() => document.querySelectorAll('[role="log"] li').length);
    throw new Error(`the log shows ${shown} of ${count} messages (screenshot: test-results/bench-chat-scroll-failure.png)`, { cause: error });
  }
  await chat.page.waitForTimeout(1500);
}

/** Touch-scrolls the log from the bottom to the top and back, collecting rAF frame intervals. */
async function measureScroll(chat) {
  const { page, cdp } = chat;
  const log = page.getByRole('log', { name: 'Chat log' });
  const box = await log.boundingBox();
  const distance = await log.evaluate((el) => el.scrollHeight - el.clientHeight);
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__frames = [];
    let last = performance.now();
    const tick = (now) => {
      w.__frames.push(now - last);
      last = now;
      if (w.__measuring) requestAnimationFrame(tick);
    };
    w.__measuring = true;
    requestAnimationFrame(tick);
  });
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await cdp.send('Performance.enable');
  const before = await metrics();
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  // The same distance for subject and reference, so only the log's length differs.
  const travel = Math.min(distance, TRAVEL_PX);
  await cdp.send('Input.synthesizeScrollGesture', { x, y, yDistance: travel, speed: 1200, gestureSourceType: 'touch', repeatCount: 1 });
  await cdp.send('Input.synthesizeScrollGesture', { x, y, yDistance: -travel, speed: 1200, gestureSourceType: 'touch', repeatCount: 1 });
  const frames = await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__measuring = false;
    return w.__frames.slice(1);
  });
  const after = await metrics();
  const spent = (name) => Math.round((after[name] - before[name]) * 1000);
  const sorted = [...frames].sort((a, b) => a - b);
  const dropped = frames.reduce((n, ms) => n + Math.max(0, Math.round(ms / FRAME_MS) - 1), 0);
  return {
    frames: frames.length,
    scrolledPx: travel * 2,
    droppedFrames: dropped,
    droppedRatio: dropped / Math.max(1, frames.length + dropped),
    p95FrameMs: sorted[Math.floor(sorted.length * 0.95)] ?? 0,
    maxFrameMs: sorted.at(-1) ?? 0,
    // Where the main thread's time went while scrolling (ms).
    scriptMs: spent('ScriptDuration'),
    layoutMs: spent('LayoutDuration'),
    styleMs: spent('RecalcStyleDuration'),
    taskMs: spent('TaskDuration'),
  };
}

/** Sends `count` parts for one msg_id (plus one 100 KB text) and measures the longest main-thread task until all are shown. */
async function measureFlood(chat, count) {
  const { page } = chat;
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__longest = 0;
    w.__observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__longest = Math.max(w.__longest, entry.duration);
    });
    w.__observer.observe({ type: 'longtask', buffered: false });
  });
  const id = `bench-flood-${count}`;
  // The page's script time, not only the wall time: at 4× the bench's own relay of each
  // frame into the page (Playwright's routeWebSocket, one CDP round trip a frame) dominates
  // the wall time, while the script time is mostly the app handling the frames.
  await chat.cdp.send('Performance.enable');
  const scriptSeconds = async () =>
    (await chat.cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ScriptDuration')?.value ?? 0;
  const scriptBefore = await scriptSeconds();
  const started = Date.now();
  chat.send({ msg_type: 'tts', msg_id: id, text: 'x'.repeat(100_000) });
  for (let i = 1; i < count - 1; i += 1) chat.send({ msg_type: 'tts', msg_id: id, text: `part ${i}` });
  // The last part is a suggestion: a long text is shown collapsed, so its end never appears.
  const done = `flood ${count} done`;
  chat.send({ msg_type: 'tts', msg_id: id, related_qa: [done] });
  await page.getByRole('button', { name: done }).waitFor({ timeout: 300_000 });
  const elapsedMs = Date.now() - started;
  const scriptMs = Math.round((await scriptSeconds()) * 1000 - scriptBefore * 1000);
  const longestTaskMs = await page.evaluate(() => /** @type {any} */ (window).__longest);
  return { parts: count, elapsedMs, scriptMs, longestTaskMs };
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;

/** The median of each scroll figure over the rounds. */
function summarize(samples) {
  const pick = (key) => median(samples.map((sample) => sample[key]));
  return {
    rounds: samples.length,
    frames: pick('frames'),
    droppedFrames: pick('droppedFrames'),
    droppedRatio: pick('droppedRatio'),
    p95FrameMs: pick('p95FrameMs'),
    maxFrameMs: pick('maxFrameMs'),
    scriptMs: pick('scriptMs'),
    layoutMs: pick('layoutMs'),
    styleMs: pick('styleMs'),
    taskMs: pick('taskMs'),
  };
}

async function throttled(chat, fn) {
  await chat.cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  try {
    return await fn();
  } finally {
    await chat.cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  }
}

/**
 * Both logs are filled first (unthrottled, it is only setup), then scrolled in
 * turns, reference and subject alternating for ROUNDS rounds: on a shared
 * machine the load changes by the minute, and alternating spreads it evenly.
 */
async function compare(browser, origin) {
  const reference = await openChat(browser, origin);
  const subject = await openChat(browser, origin);
  try {
    await fillLog(reference, origin, REFERENCE);
    await fillLog(subject, origin, MESSAGES);
    const samples = { reference: [], subject: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      samples.reference.push(await throttled(reference, () => measureScroll(reference)));
      samples.subject.push(await throttled(subject, () => measureScroll(subject)));
    }
    const none = { parts: 0, elapsedMs: 0, scriptMs: 0, longestTaskMs: 0 };
    const floodRef = opts['no-flood'] ? none : await throttled(reference, () => measureFlood(reference, REFERENCE_PARTS));
    const floodSub = opts['no-flood'] ? none : await throttled(subject, () => measureFlood(subject, PARTS));
    return {
      reference: { messages: REFERENCE, scroll: summarize(samples.reference), flood: floodRef },
      subject: { messages: MESSAGES, scroll: summarize(samples.subject), flood: floodSub },
    };
  } finally {
    await reference.context.close();
    await subject.context.close();
  }
}

const ratio = (a, b) => (b === 0 ? (a === 0 ? 1 : Infinity) : a / b);
const fixed = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

const standin = await startStandin();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  const { reference, subject } = await compare(browser, standin.origin);
  const result = {
    cpuThrottle: RATE,
    reference,
    subject,
    ratios: {
      droppedRatio: ratio(subject.scroll.droppedRatio, reference.scroll.droppedRatio),
      p95FrameMs: ratio(subject.scroll.p95FrameMs, reference.scroll.p95FrameMs),
      floodLongestTaskMs: ratio(subject.flood.longestTaskMs, reference.flood.longestTaskMs),
      floodScriptMsPerPart: ratio(subject.flood.scriptMs / PARTS, reference.flood.scriptMs / REFERENCE_PARTS),
    },
  };
  if (opts.json) console.log(JSON.stringify(result, null, 2));
  else {
    const s = subject.scroll;
    const r = reference.scroll;
    console.log(`chat-scroll  CPU throttle ${RATE}×, 390×844, subject ${MESSAGES} messages vs reference ${REFERENCE}, median of ${ROUNDS} alternating rounds`);
    console.log(`  scroll: dropped ${s.droppedFrames}/${s.frames + s.droppedFrames} frames (${fixed(s.droppedRatio * 100, 1)}%) vs ${r.droppedFrames}/${r.frames + r.droppedFrames} (${fixed(r.droppedRatio * 100, 1)}%)  ${Number.isFinite(result.ratios.droppedRatio) ? `ratio ${fixed(result.ratios.droppedRatio)}` : 'ratio undefined: the reference dropped none'}`);
    console.log(`  scroll: p95 frame ${fixed(s.p95FrameMs, 1)} ms vs ${fixed(r.p95FrameMs, 1)} ms  ratio ${fixed(result.ratios.p95FrameMs)}; max ${fixed(s.maxFrameMs, 1)} vs ${fixed(r.maxFrameMs, 1)} ms`);
    console.log(`  scroll: main thread script/layout/style/all tasks ${s.scriptMs}/${s.layoutMs}/${s.styleMs}/${s.taskMs} ms vs ${r.scriptMs}/${r.layoutMs}/${r.styleMs}/${r.taskMs} ms`);
    console.log(`  flood: ${PARTS} parts in one msg_id (first 100 KB): shown after ${subject.flood.elapsedMs} ms, longest task ${fixed(subject.flood.longestTaskMs, 0)} ms vs ${REFERENCE_PARTS} parts: ${reference.flood.elapsedMs} ms, ${fixed(reference.flood.longestTaskMs, 0)} ms  ratio ${fixed(result.ratios.floodLongestTaskMs)}`);
    console.log(`  flood: page script ${subject.flood.scriptMs} ms (${fixed(subject.flood.scriptMs / PARTS)} ms a part) vs ${reference.flood.scriptMs} ms (${fixed(reference.flood.scriptMs / REFERENCE_PARTS)} ms a part)  ratio a part ${fixed(result.ratios.floodScriptMsPerPart)}`);
  }
} finally {
  await browser.close();
  standin.stop();
}
