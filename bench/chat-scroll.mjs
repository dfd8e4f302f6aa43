#!/usr/bin/env node
/**
 * Chat log smoothness (issue 4): a long log with images must scroll without
 * dropped frames on a 4× CPU throttle, and a flood of parts must not freeze
 * the page.
 *
 * Builds the app for the stand-in (into .cache/bench-dist-chat; BENCH_SKIP_BUILD=1
 * reuses it), serves it from a fresh stand-in on a free port, and opens it in
 * headless Chromium at 390×844, starts a chat, then fills the log through the real
 * signaling socket: the stand-in's frames pass through untouched and the bench adds
 * its own (Playwright routeWebSocket).
 *
 * Every figure is printed with the same measurement of a reference made in the
 * same run (50 messages; 100 parts), as a ratio, so the numbers compare across
 * machines: absolute milliseconds on a shared 2-core box mean little. The
 * scroll figures are medians of alternating rounds (reference, subject, ...).
 *
 * Goals (what a visitor would feel; the reasons are in bench/results/HISTORY.md, chat-scroll):
 *   scroll-dropped            dropped frames while scrolling the long log ≤ 1 %
 *   scroll-p95-ratio          p95 frame time, long log / reference log ≤ 1.25
 *   flood-script-per-part     the page's script time per part of the flood ≤ 40 ms (at 4×)
 *   flood-longest-task-ratio  longest task, long flood / reference flood ≤ 1.5
 *
 *   node bench/chat-scroll.mjs [--messages 500] [--reference 50] [--parts 1000] [--reference-parts 100]
 *                              [--rate 4] [--rounds 3] [--travel 3000] [--no-flood] [--json] [--quick]
 * --quick (or BENCH_QUICK=1): 200 messages, 200 / 50 parts, one round, unless given: checks the wiring.
 * Writes bench/results/chat-scroll.json (bench/_report.mjs); exit 1 on a missed goal, 2 when
 * it could not measure.
 */
// The functions passed to page.evaluate run in the page, where these exist.
/* global window, document, requestAnimationFrame */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { buildApp, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';

const { values: opts } = parseArgs({
  options: {
    messages: { type: 'string' },
    reference: { type: 'string' },
    parts: { type: 'string' },
    'reference-parts': { type: 'string' },
    rate: { type: 'string', default: '4' },
    rounds: { type: 'string' },
    travel: { type: 'string', default: '3000' },
    json: { type: 'boolean', default: false },
    'no-flood': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});
const QUICK = isQuick();
/** An option as given, else its quick-run or full-run default. */
const option = (name, full, quick) => Number(opts[name] ?? (QUICK ? quick : full));
const MESSAGES = option('messages', 500, 200);
const REFERENCE = option('reference', 50, 50);
const PARTS = option('parts', 1000, 200);
const REFERENCE_PARTS = option('reference-parts', 100, 50);
const RATE = Number(opts.rate);
const ROUNDS = option('rounds', 3, 1);
const FRAME_MS = 1000 / 60;
const TRAVEL_PX = Number(opts.travel);
const FLOOD = !opts['no-flood'];
// Its own build, so another benchmark's rebuild (or the test suite's dist/) never changes what is measured.
const OUT_DIR = join(ROOT, '.cache', 'bench-dist-chat');

/** The goals' limits; why these values is in bench/results/HISTORY.md, chat-scroll. */
const GOALS = { droppedPct: 1, p95Ratio: 1.25, floodScriptMsPerPart: 40, floodLongestTaskRatio: 1.5 };
/** The Long Tasks API reports only tasks over 50 ms: a flood without one had none longer. */
const LONG_TASK_MS = 50;

/**
 * A live chat page whose signaling socket the bench can add frames to, its avatar playing.
 * Setup, not measurement: on a loaded machine a session's media can fail to connect after
 * the session went live (the app then ends it, and the log never fills); that one is closed
 * and another opened.
 */
async function openChat(browser, origin) {
  for (let attempt = 1; ; attempt += 1) {
    const chat = await openChatOnce(browser, origin);
    const playing = await chat.page
      .waitForFunction(() => (document.querySelector('.avatar-video__el')?.currentTime ?? 0) > 0, null, { timeout: 45_000 })
      .then(() => true, () => false);
    if (playing) return chat;
    await chat.context.close();
    if (attempt === 3) throw new Error("the avatar's media did not connect in 3 sessions");
  }
}

async function openChatOnce(browser, origin) {
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

/**
 * Sends `count` parts for one msg_id (plus one 100 KB text) and measures the longest
 * main-thread task until all are shown. `round` keeps each round's message and its last
 * suggestion apart from the earlier rounds' still in the log.
 */
async function measureFlood(chat, count, round) {
  const { page } = chat;
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__observer?.disconnect();
    w.__longest = 0;
    w.__observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__longest = Math.max(w.__longest, entry.duration);
    });
    w.__observer.observe({ type: 'longtask', buffered: false });
  });
  const id = `bench-flood-${count}-${round}`;
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
  const done = `flood ${count} round ${round} done`;
  chat.send({ msg_type: 'tts', msg_id: id, related_qa: [done] });
  // Not a role locator: Playwright evaluates one on the page's main thread, over the whole
  // log's accessibility names at every poll, and at 4× over 500 messages that poll was itself
  // a long task of the size measured (the bench's own, growing with the log). The last
  // message's buttons are all a flood can have added.
  await page.waitForFunction(
    (label) => [...(document.querySelector('[role="log"] li:last-child')?.querySelectorAll('button') ?? [])].some((b) => b.textContent?.trim() === label),
    done,
    { timeout: 300_000, polling: 100 },
  );
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

/** The median of each flood figure over the rounds, with every round's own figures. */
function summarizeFloods(rounds) {
  if (rounds.length === 0) return null;
  const pick = (key) => median(rounds.map((flood) => flood[key]));
  return { parts: rounds[0].parts, rounds: rounds.length, elapsedMs: pick('elapsedMs'), scriptMs: pick('scriptMs'), longestTaskMs: pick('longestTaskMs'), each: rounds };
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
    // The floods alternate for ROUNDS rounds too: a longest task is one sample's maximum,
    // so a single flood each made the ratio of two maxima swing with the machine's load.
    const floods = { reference: [], subject: [] };
    for (let round = 0; FLOOD && round < ROUNDS; round += 1) {
      floods.reference.push(await throttled(reference, () => measureFlood(reference, REFERENCE_PARTS, round)));
      floods.subject.push(await throttled(subject, () => measureFlood(subject, PARTS, round)));
    }
    return {
      reference: { messages: REFERENCE, scroll: summarize(samples.reference), flood: summarizeFloods(floods.reference) },
      subject: { messages: MESSAGES, scroll: summarize(samples.subject), flood: summarizeFloods(floods.subject) },
    };
  } finally {
    await reference.context.close();
    await subject.context.close();
  }
}

const fixed = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const round = (n, d = 2) => Number(n.toFixed(d));

await runBench('chat-scroll', { what: `scrolling a long chat log with images, and a flood of parts, at ${RATE}× CPU throttle`, chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { cpuThrottle: RATE, messages: MESSAGES, referenceMessages: REFERENCE, parts: FLOOD ? PARTS : 0, referenceParts: FLOOD ? REFERENCE_PARTS : 0, rounds: ROUNDS, travelPx: TRAVEL_PX, viewport: '390×844' };
  buildApp(OUT_DIR);
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  let compared;
  try {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      compared = await compare(browser, standin.url);
    } finally {
      await browser.close();
    }
  } finally {
    await standin.stop();
  }
  const { reference, subject } = compared;
  report.figures = { reference, subject };
  const s = subject.scroll;
  const r = reference.scroll;
  if (s.frames === 0 || r.frames === 0) throw new Error('no animation frame was recorded while scrolling');

  report.goal('scroll-dropped', { label: `dropped frames while scrolling ${MESSAGES} messages`, value: round(s.droppedRatio * 100, 2), limit: GOALS.droppedPct, unit: '%', digits: 1 });
  const p95 = report.ratio('scroll-p95', { label: `p95 frame time while scrolling, ${MESSAGES} / ${REFERENCE} messages`, subject: [`${MESSAGES} messages`, round(s.p95FrameMs, 1)], reference: [`${REFERENCE} messages`, round(r.p95FrameMs, 1)], unit: 'ms', digits: 2 });
  report.goal('scroll-p95-ratio', { label: `p95 frame time while scrolling, ${MESSAGES} / ${REFERENCE} messages`, value: p95, limit: GOALS.p95Ratio, unit: '×', digits: 2 });
  const droppedRatio = report.ratio('scroll-dropped', { label: `dropped-frame share, ${MESSAGES} / ${REFERENCE} messages (undefined when the reference dropped none)`, subject: [`${MESSAGES} messages`, round(s.droppedRatio * 100, 2)], reference: [`${REFERENCE} messages`, round(r.droppedRatio * 100, 2)], unit: '%', digits: 2 });
  const longestFrame = report.ratio('scroll-longest-frame', { label: `longest frame while scrolling, ${MESSAGES} / ${REFERENCE} messages`, subject: [`${MESSAGES} messages`, round(s.maxFrameMs, 1)], reference: [`${REFERENCE} messages`, round(r.maxFrameMs, 1)], unit: 'ms', digits: 2 });

  const rows = [
    ['dropped frames while scrolling', `${s.droppedFrames} / ${s.frames + s.droppedFrames} (${fixed(s.droppedRatio * 100, 1)} %)`, `${r.droppedFrames} / ${r.frames + r.droppedFrames} (${fixed(r.droppedRatio * 100, 1)} %)`, r.droppedFrames === 0 ? '— (the reference dropped none)' : fixed(droppedRatio)],
    ['p95 frame time', `${fixed(s.p95FrameMs, 1)} ms`, `${fixed(r.p95FrameMs, 1)} ms`, fixed(p95)],
    ['longest frame', `${fixed(s.maxFrameMs, 1)} ms`, `${fixed(r.maxFrameMs, 1)} ms`, fixed(longestFrame)],
    ['main thread while scrolling: script / layout / style / all tasks', `${s.scriptMs} / ${s.layoutMs} / ${s.styleMs} / ${s.taskMs} ms`, `${r.scriptMs} / ${r.layoutMs} / ${r.styleMs} / ${r.taskMs} ms`, ''],
  ];
  if (FLOOD) {
    const fs = subject.flood;
    const fr = reference.flood;
    const perPart = (f) => round(f.scriptMs / f.parts, 2);
    report.goal('flood-script-per-part', { label: `the page's script time per part, a flood of ${PARTS} parts in one msg_id (the first 100 KB)`, value: perPart(fs), limit: GOALS.floodScriptMsPerPart, unit: 'ms', digits: 1 });
    const scriptPerPart = report.ratio('flood-script-per-part', { label: `script time per part, ${PARTS}-part flood / ${REFERENCE_PARTS}-part flood`, subject: [`${PARTS} parts`, perPart(fs)], reference: [`${REFERENCE_PARTS} parts`, perPart(fr)], unit: 'ms', digits: 2 });
    // No long task in the reference flood means none over 50 ms: 50 ms is then its longest task's bound.
    const longest = (f) => round(Math.max(f.longestTaskMs, LONG_TASK_MS), 1);
    const taskRatio = report.ratio('flood-longest-task', { label: `longest main-thread task (at least ${LONG_TASK_MS} ms, the Long Tasks API's threshold), ${PARTS}-part / ${REFERENCE_PARTS}-part flood`, subject: [`${PARTS} parts`, longest(fs)], reference: [`${REFERENCE_PARTS} parts`, longest(fr)], unit: 'ms', digits: 2 });
    report.goal('flood-longest-task-ratio', { label: `longest task, a flood of ${PARTS} parts / one of ${REFERENCE_PARTS}`, value: taskRatio, limit: GOALS.floodLongestTaskRatio, unit: '×', digits: 2 });
    rows.push(
      [`flood: parts in one msg_id, the first a 100 KB text → all shown`, `${fs.parts} parts: ${fixed(fs.elapsedMs / 1000, 1)} s, longest task ${Math.round(fs.longestTaskMs)} ms`, `${fr.parts} parts: ${fixed(fr.elapsedMs / 1000, 1)} s, longest task ${Math.round(fr.longestTaskMs)} ms`, fixed(taskRatio)],
      ['flood: the page\'s script time', `${fixed(fs.scriptMs / 1000, 1)} s = ${fixed(perPart(fs), 1)} ms a part`, `${fixed(fr.scriptMs / 1000, 2)} s = ${fixed(perPart(fr), 1)} ms a part`, `${fixed(scriptPerPart)} (a part)`],
    );
  } else {
    report.note('Run with --no-flood: the flood and its goals were not measured.');
  }
  report.table(`${RATE}× CPU throttle, 390×844, median of ${ROUNDS} alternating rounds (scrolling and floods)`, ['figure', `${MESSAGES} messages with images`, `reference: ${REFERENCE} messages`, 'ratio'], rows);

  if (opts.json) console.log(JSON.stringify(report.figures, null, 2));
  else {
    console.log(`chat-scroll  CPU throttle ${RATE}×, 390×844, subject ${MESSAGES} messages vs reference ${REFERENCE}, median of ${ROUNDS} alternating rounds`);
    for (const row of rows) console.log(`  ${row.join(' | ')}`);
  }
});
