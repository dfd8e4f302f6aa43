/**
 * One measured call of bench/call-cost.mjs, the app's or the floor's, in a browser of its
 * own (so that every process of that browser is this call's): live, the greeting heard,
 * the CPU throttled, the call started, a warm-up, then one or more measured windows, each
 * read from /proc (every browser process), CDP (the page's main thread, its heap, nodes and
 * listeners) and the page's probe (long tasks, video frames, the questions). Optionally a
 * CPU profile of the page's main thread after the last window.
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, ROOT } from '../_setup.mjs';
import { installProbe, readProbe, readVideo } from './probe.mjs';
import { browserPid, watchBrowser } from './procs.mjs';

/** Where bench/call-cost.mjs builds the app (the floor in its call-cost-floor/), and its test microphone: the tools beside it use them too (tools.mjs). */
export const BUILD_DIR = join(ROOT, '.cache', 'bench-dist-call-cost');
export const MIC_FILE = join(ROOT, '.cache', 'call-cost', 'microphone.wav');
/** A low-end phone: a 390×844 CSS-pixel screen at 2 device pixels per CSS pixel (720–780 physical pixels wide). */
export const PHONE_VIEWPORT = { width: 390, height: 844, dpr: 2 };

const LIVE_TIMEOUT_MS = 45_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => Number(loadavg()[0].toFixed(2));

/** How each client goes live, starts and ends its call. */
const CLIENTS = {
  app: {
    path: '/25d/demo',
    async live(page) {
      // On a loaded machine a start can miss the client's own 15 s limit: that is not what this measures.
      const end = page.getByRole('button', { name: 'End chat', exact: true, disabled: false });
      for (let attempt = 1; ; attempt += 1) {
        await page.getByRole('button', { name: 'Start chat', exact: true, disabled: false }).click({ timeout: LIVE_TIMEOUT_MS });
        const live = await end.waitFor({ timeout: LIVE_TIMEOUT_MS }).then(
          () => true,
          () => false,
        );
        if (live) return;
        if (attempt === 3) throw new Error('the app did not go live in 3 starts');
      }
    },
    async startCall(page) {
      await page.getByRole('button', { name: 'Start call', exact: true }).click({ timeout: LIVE_TIMEOUT_MS });
      await page.getByRole('button', { name: 'Hang up', exact: true }).waitFor({ state: 'visible', timeout: LIVE_TIMEOUT_MS });
    },
    async end(page) {
      await page.getByRole('button', { name: 'Hang up', exact: true }).click({ timeout: 30_000 });
      await page.getByRole('button', { name: 'End chat', exact: true }).click({ timeout: 30_000 });
      await page.getByRole('button', { name: 'Start chat', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
    },
  },
  floor: {
    path: '/25d/call-cost-floor/index.html',
    async live(page) {
      await page.waitForFunction(() => window.__floor !== undefined, null, { timeout: LIVE_TIMEOUT_MS });
      await page.evaluate(() => window.__floor.start());
    },
    async startCall(page) {
      await page.evaluate(() => window.__floor.startCall());
    },
    async end(page) {
      await page.evaluate(() => window.__floor.end());
    },
  },
};

/** The page's CDP metrics that matter here, by name. */
async function metrics(cdp) {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

/** A renderer's figures that are cumulative, read at the start and end of a window. */
async function cumulative(page, cdp) {
  const m = await metrics(cdp);
  return {
    // The main thread's CPU time (s), and its tasks' wall time (s), as Chromium counts them.
    threadS: m.ThreadTime,
    taskS: m.TaskDuration,
    scriptS: m.ScriptDuration,
    layoutS: m.LayoutDuration,
    styleS: m.RecalcStyleDuration,
    video: await page.evaluate(readVideo),
    perfNow: await page.evaluate(() => performance.now()),
    at: Date.now(),
  };
}

/** The nodes of a subtree as DevTools sees them: shadow roots (the browser's own, as a video's controls), frames and pseudo-elements included. */
function subtreeNodes(node) {
  let count = 1;
  for (const list of [node.children, node.shadowRoots, node.pseudoElements]) for (const child of list ?? []) count += subtreeNodes(child);
  if (node.contentDocument) count += subtreeNodes(node.contentDocument);
  if (node.templateContent) count += subtreeNodes(node.templateContent);
  return count;
}

/** The nodes of the element `objectId` and below (DOM.describeNode, piercing shadow roots and frames). */
async function describe(cdp, objectId) {
  return (await cdp.send('DOM.describeNode', { objectId, depth: -1, pierce: true })).node;
}

/** A remote object for `expression`, released after `use` (null when it is null). */
async function withObject(cdp, expression, use) {
  const { result } = await cdp.send('Runtime.evaluate', { expression });
  if (!result.objectId) return use(null);
  try {
    return await use(result.objectId);
  } finally {
    await cdp.send('Runtime.releaseObject', { objectId: result.objectId });
  }
}

/**
 * The chat log's share of the page's nodes and listeners: it grows with every message by
 * design (up to the chat's own cap), so what must stay flat over a long call is the rest.
 * Nodes: those of the log's list and of the whole document, on the same basis (DevTools'
 * view, which includes shadow roots: a <video controls> in a reply brings about 125 nodes
 * of the browser's controls that a TreeWalker never sees); `nodes`, CDP's count of every
 * node alive, also counts detached ones and parts DevTools does not show. Listeners: those
 * on the log's subtree (DOMDebugger.getEventListeners over it).
 */
async function chatLogCounts(cdp) {
  const documentNodes = await withObject(cdp, 'document', async (id) => subtreeNodes(await describe(cdp, id)));
  return withObject(cdp, "document.querySelector('.chat__list')", async (id) => {
    if (id === null) return { chatMessages: 0, chatNodes: 0, chatListeners: 0, documentNodes };
    const list = await describe(cdp, id);
    const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: id, depth: -1, pierce: true });
    const ELEMENT_NODE = 1;
    return {
      chatMessages: (list.children ?? []).filter((child) => child.nodeType === ELEMENT_NODE).length,
      chatNodes: subtreeNodes(list),
      documentNodes,
      chatListeners: listeners.length,
    };
  });
}

/** The difference of two cumulative readings, per minute where it is a time. */
function windowFigures(a, b, procs) {
  const minutes = (b.at - a.at) / 60_000;
  const perMin = (x, y) => (y - x) / minutes;
  const inboundDelta = (key) => (a.video.inbound && b.video.inbound ? b.video.inbound[key] - a.video.inbound[key] : null);
  return {
    seconds: (b.at - a.at) / 1000,
    cpuSPerMin: procs.cpuS / minutes,
    byKindSPerMin: Object.fromEntries(Object.entries(procs.byKind).map(([k, v]) => [k, v / minutes])),
    byThreadSPerMin: Object.fromEntries(Object.entries(procs.byThread).map(([k, v]) => [k, v / minutes])),
    rssMb: procs.rssMb,
    mainSPerMin: perMin(a.threadS, b.threadS),
    taskSPerMin: perMin(a.taskS, b.taskS),
    scriptSPerMin: perMin(a.scriptS, b.scriptS),
    layoutSPerMin: perMin(a.layoutS, b.layoutS),
    styleSPerMin: perMin(a.styleS, b.styleS),
    video: {
      presented: b.video.total - a.video.total,
      dropped: b.video.dropped - a.video.dropped,
      received: inboundDelta('framesReceived'),
      decoded: inboundDelta('framesDecoded'),
      droppedBeforeDecode: inboundDelta('framesDropped'),
      decodeMsPerFrame: inboundDelta('framesDecoded') ? (1000 * inboundDelta('totalDecodeTime')) / inboundDelta('framesDecoded') : null,
      size: b.video.inbound ? `${b.video.inbound.frameWidth}×${b.video.inbound.frameHeight}` : null,
      decoder: b.video.inbound?.decoderImplementation ?? null,
    },
    perfFrom: a.perfNow,
    perfTo: b.perfNow,
    from: a.at,
    to: b.at,
  };
}

/**
 * One call. options: client ('app' | 'floor'), rate (the nominal CPU throttling, its name in
 * the results), throttle (the slowdown applied to this host for it; `rate` when absent), base (the stand-in's
 * URL), micFile, pulseServer, viewport {width, height, dpr}, warmupS, windows (seconds of
 * each measured window, in order), heapEach (force a GC and read heap, nodes and listeners
 * after every window, not only the last), profileS (a CPU profile of the main thread after
 * the windows; 0: none), onWindow(figures, index) (called as each window ends), prepare(page)
 * (a hook before the page loads, for experiments: e.g. a style to try a cut without a rebuild).
 */
export async function runCall(options) {
  const client = CLIENTS[options.client];
  const before = browserPid() === null ? new Set() : new Set([browserPid()]);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, `--use-file-for-fake-audio-capture=${options.micFile}`],
    // Playwright mutes headless Chromium by default; a phone plays the avatar into its speaker.
    ignoreDefaultArgs: ['--mute-audio'],
    env: { ...process.env, PULSE_SERVER: options.pulseServer },
  });
  const result = { client: options.client, rate: options.rate, throttle: options.throttle ?? options.rate, load: { start: load() }, windows: [], problems: [] };
  try {
    const root = browserPid(before);
    if (root === null) throw new Error('the browser process was not found under this process');
    const watch = watchBrowser(root);
    const { width, height, dpr } = options.viewport;
    const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: dpr, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    page.on('pageerror', (error) => result.problems.push(`page error: ${error.message}`));
    if (process.env.BENCH_DEBUG) page.on('console', (m) => console.error(`[${options.client}]`, m.type(), m.text().slice(0, 300)));
    await page.addInitScript(installProbe);
    await page.addInitScript(() => window.localStorage.setItem('lang', 'en'));
    await options.prepare?.(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');

    await page.goto(`${options.base}${client.path}`, { timeout: LIVE_TIMEOUT_MS });
    await client.live(page);
    // The greeting said and over: from here on the avatar speaks only to answer.
    await page.waitForFunction(() => window.__callCost.received.some((r) => r.kind === 'nlp_end'), null, { timeout: LIVE_TIMEOUT_MS, polling: 250 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: options.throttle ?? options.rate });
    await client.startCall(page);
    await sleep(options.warmupS * 1000);

    for (const [index, seconds] of options.windows.entries()) {
      const a = await cumulative(page, cdp);
      const procWindow = watch.window();
      await sleep(seconds * 1000);
      const procs = procWindow.end();
      const b = await cumulative(page, cdp);
      const figures = windowFigures(a, b, procs);
      if (options.heapEach || index === options.windows.length - 1) {
        await cdp.send('HeapProfiler.collectGarbage');
        const m = await metrics(cdp);
        figures.heapMb = m.JSHeapUsedSize / 2 ** 20;
        figures.nodes = m.Nodes;
        figures.listeners = m.JSEventListeners;
        Object.assign(figures, await chatLogCounts(cdp));
      }
      result.windows.push(figures);
      options.onWindow?.(figures, index);
    }

    await options.afterWindows?.(page, browser);
    if (options.profileS > 0) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
      await cdp.send('Profiler.start');
      await sleep(options.profileS * 1000);
      result.profile = (await cdp.send('Profiler.stop')).profile;
    }

    // The last question's answer may still be on its way.
    await sleep(12_000);
    result.probe = await page.evaluate(readProbe);
    const floorError = options.client === 'floor' ? await page.evaluate(() => window.__floor.state.error) : null;
    if (floorError) result.problems.push(`floor: ${floorError}`);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await client.end(page).catch((error) => result.problems.push(`ending the call: ${error.message.split('\n')[0]}`));
    result.load.end = load();
    return result;
  } finally {
    await browser.close();
  }
}
