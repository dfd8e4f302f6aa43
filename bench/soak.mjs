/**
 * A 30-minute live session on an impaired link (issue 12): the browser in a network
 * namespace of its own, its media relay-only through a real TURN relay (coturn), 2 % loss
 * each way on the media, and every 5 minutes the stand-in drops the session's signaling
 * socket and its media peer together (POST /__standin/strike). Each minute, after a forced
 * garbage collection, the page's JS heap, DOM nodes and event listeners (CDP
 * Performance.getMetrics) and its open peer connections and sockets are sampled.
 *
 * What a visitor who keeps a session open on a train needs: the session stays live through
 * every drop, it holds one peer connection and one socket, and nothing grows with time. The
 * slope of each figure over the last ten minutes is compared with the first ten's (the
 * reference, same run): growth that comes with starting up flattens out; a leak does not.
 *
 * Goals: heap slope over the last ten minutes ≤ 100 KB/min; event listeners ≤ 1 per
 * minute; DOM nodes ≤ 10 per minute; every sample live, with exactly one open peer
 * connection and one open socket.
 *
 *   node bench/soak.mjs            30 minutes (BENCH_SKIP_BUILD=1 reuses the build)
 *   node bench/soak.mjs --quick    4 minutes, a drop each minute: checks the wiring
 * Needs root (network namespaces, nftables, tc) and coturn: without them it cannot measure (exit 2).
 * Writes bench/results/soak.json (bench/_report.mjs); exit 1 on a missed goal, 2 when it could not measure.
 */
/* global window, document */
import { join } from 'node:path';
import { chromium, devices } from '@playwright/test';
import { tsImport } from 'tsx/esm/api';
import { buildApp, CHROMIUM_ARGS, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';

const { createImpairedLink, impairmentUnavailable } = await tsImport('../tests/support/impairedLink.ts', import.meta.url);
const { newTurnSecret, startTurnRelay } = await tsImport('../server/turn.ts', import.meta.url);

const QUICK = isQuick();
const MINUTES = Number(process.env.SOAK_MINUTES ?? (QUICK ? 4 : 30));
const DROP_EVERY_MIN = QUICK ? 1 : 5;
const WINDOW_MIN = Math.max(2, Math.min(10, Math.floor(MINUTES / 3)));
const LOSS_PCT = 2;
const LIMITS = { heapKbPerMin: 100, listenersPerMin: 1, nodesPerMin: 10 };
const OUT_DIR = join(ROOT, '.cache', 'bench-dist-soak');

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  return sxx === 0 ? null : sxy / sxx;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs in the page: counts the peer connections and sockets the app makes, holding them
 * weakly (the test suite's counters hold them strongly, which here would keep every dropped
 * connection and its listeners alive and measure the instrument instead of the app).
 */
function weakCounters() {
  const made = { pcs: [], sockets: [] };
  Object.defineProperty(window, '__weakCounters', { value: made });
  const NativePc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePc {
    constructor(config) {
      super(config);
      made.pcs.push(new WeakRef(this));
    }
  };
  const NativeWs = window.WebSocket;
  window.WebSocket = class extends NativeWs {
    constructor(url, protocols) {
      super(url, protocols);
      made.sockets.push(new WeakRef(this));
    }
  };
}

/** Runs in the page: made so far, and open now (an object collected is not open). */
function readWeakCounts() {
  const made = window.__weakCounters;
  const alive = (list) => list.map((ref) => ref.deref()).filter(Boolean);
  return {
    pcCreated: made.pcs.length,
    pcOpen: alive(made.pcs).filter((pc) => pc.signalingState !== 'closed').length,
    pcReachable: alive(made.pcs).length,
    socketsCreated: made.sockets.length,
    socketsOpen: alive(made.sockets).filter((ws) => ws.readyState !== WebSocket.CLOSED).length,
    socketsReachable: alive(made.sockets).length,
  };
}

await runBench('soak', { what: `a ${MINUTES}-minute live session, ${LOSS_PCT} % loss, signaling and media dropped every ${DROP_EVERY_MIN} min`, chromium: '/usr/bin/chromium' }, async (report) => {
  const why = impairmentUnavailable();
  if (why) throw new Error(`impaired links are not available here: ${why}`);
  buildApp(OUT_DIR);
  const link = await createImpairedLink();
  let standin;
  let turn;
  let browser;
  try {
    // The bench's own relay, behind the delay line, shares its secret with the stand-in that hands out its credentials.
    const secret = newTurnSecret();
    standin = await startStandin({ env: { HOST: link.hostIp, STANDIN_TURN: '0', STANDIN_TURN_SECRET: secret, STANDIN_PUBLIC_DIR: OUT_DIR } });
    const port = Number(new URL(standin.url).port);
    turn = await startTurnRelay({ host: '127.0.0.1', port, log: { info() {}, warn: console.warn, error: console.error }, secret, peers: [link.hostIp] });
    if (!turn) throw new Error('coturn did not start');
    await link.startDelayLine(port);
    link.impair({ lossPct: LOSS_PCT });
    browser = await chromium.launch({
      executablePath: link.chromiumWrapper,
      args: [...CHROMIUM_ARGS, `--unsafely-treat-insecure-origin-as-secure=${standin.url}`, '--js-flags=--expose-gc'],
    });
    const context = await browser.newContext({ ...devices['iPhone 12'], viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.addInitScript(weakCounters);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');

    await page.goto(`${standin.url}/25d/demo?relay=1`);
    await page.getByRole('button', { name: 'Start chat', exact: true }).click({ timeout: 60_000 });
    await page.getByRole('button', { name: 'End chat', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });

    const samples = [];
    const drops = [];
    const started = Date.now();
    for (let minute = 1; minute <= MINUTES; minute += 1) {
      // Drops land half a minute before a sample, so each sample sees the session after its recovery.
      await sleep(Math.max(0, started + (minute - 0.5) * 60_000 - Date.now()));
      if (minute % DROP_EVERY_MIN === 0 && minute < MINUTES) {
        const res = await fetch(`${standin.url}/__standin/strike`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ faults: ['signaling-drop', 'media-drop'] }),
        });
        drops.push({ minute: minute - 0.5, status: res.status });
        if (res.status !== 200) throw new Error(`the drop at minute ${minute - 0.5} found no live session (HTTP ${res.status})`);
      }
      await sleep(Math.max(0, started + minute * 60_000 - Date.now()));
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const metric = (name) => metrics.find((m) => m.name === name)?.value ?? null;
      const counts = await page.evaluate(readWeakCounts);
      const live = await page.evaluate(() => ({
        endChat: Boolean([...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'End chat')),
        alert: document.querySelector('[role="alert"]')?.textContent ?? null,
      }));
      const sample = {
        minute,
        heapMb: Math.round((metric('JSHeapUsedSize') / 1048576) * 1000) / 1000,
        nodes: metric('Nodes'),
        listeners: metric('JSEventListeners'),
        pcOpen: counts.pcOpen,
        pcCreated: counts.pcCreated,
        pcReachable: counts.pcReachable,
        socketsOpen: counts.socketsOpen,
        socketsCreated: counts.socketsCreated,
        socketsReachable: counts.socketsReachable,
        live: live.endChat && live.alert === null,
        alert: live.alert,
      };
      samples.push(sample);
      console.log(`minute ${minute}: ${JSON.stringify(sample)}`);
    }
    report.figures.samples = samples;
    report.figures.drops = drops;
    report.figures.delayLine = link.counts();

    const windowOf = (from, to) => samples.filter((s) => s.minute > from && s.minute <= to);
    const first = windowOf(0, WINDOW_MIN);
    const last = windowOf(MINUTES - WINDOW_MIN, MINUTES);
    const slopes = (key, scale = 1) => ({
      first: slope(first.map((s) => ({ x: s.minute, y: s[key] * scale }))),
      last: slope(last.map((s) => ({ x: s.minute, y: s[key] * scale }))),
    });
    const heap = slopes('heapMb', 1024);
    const listeners = slopes('listeners');
    const nodes = slopes('nodes');
    const round = (v, d = 2) => (v === null ? null : Math.round(v * 10 ** d) / 10 ** d);
    report.goal('heap-slope', { label: `JS heap slope, last ${WINDOW_MIN} min`, value: round(heap.last), limit: LIMITS.heapKbPerMin, unit: 'KB/min' });
    report.goal('listener-slope', { label: `event listeners slope, last ${WINDOW_MIN} min`, value: round(listeners.last), limit: LIMITS.listenersPerMin, unit: '/min' });
    report.goal('node-slope', { label: `DOM nodes slope, last ${WINDOW_MIN} min`, value: round(nodes.last), limit: LIMITS.nodesPerMin, unit: '/min' });
    report.ratio('heap-last-vs-first', { label: `heap slope, last ${WINDOW_MIN} min / first ${WINDOW_MIN} min`, subject: ['last', round(heap.last)], reference: ['first', round(heap.first)], unit: 'KB/min' });
    report.ratio('listeners-last-vs-first', { label: `listener slope, last / first ${WINDOW_MIN} min`, subject: ['last', round(listeners.last)], reference: ['first', round(listeners.first)], unit: '/min' });
    report.ratio('nodes-last-vs-first', { label: `DOM node slope, last / first ${WINDOW_MIN} min`, subject: ['last', round(nodes.last)], reference: ['first', round(nodes.first)], unit: '/min' });
    const notLive = samples.filter((s) => !s.live).length;
    const extraConnections = samples.filter((s) => s.pcOpen !== 1 || s.socketsOpen !== 1).length;
    report.goal('live-throughout', { label: 'samples where the session was not live', value: notLive, limit: 0, cmp: '==' });
    report.goal('one-connection-each', { label: 'samples without exactly one open peer connection and one open socket', value: extraConnections, limit: 0, cmp: '==' });
    const at = (s) => `${s.heapMb} MB, ${s.nodes} nodes, ${s.listeners} listeners, ${s.pcCreated} peer connections made`;
    report.table(
      `Soak: ${MINUTES} min live, ${LOSS_PCT} % loss through the relay, signaling + media dropped every ${DROP_EVERY_MIN} min`,
      ['figure', `slope, first ${WINDOW_MIN} min`, `slope, last ${WINDOW_MIN} min`, 'goal (last)'],
      [
        ['JS heap (after GC)', `${round(heap.first)} KB/min`, `${round(heap.last)} KB/min`, `≤ ${LIMITS.heapKbPerMin} KB/min`],
        ['event listeners', `${round(listeners.first)} /min`, `${round(listeners.last)} /min`, `≤ ${LIMITS.listenersPerMin} /min`],
        ['DOM nodes', `${round(nodes.first)} /min`, `${round(nodes.last)} /min`, `≤ ${LIMITS.nodesPerMin} /min`],
        ['minute 1 → last', at(samples[0]), at(samples[samples.length - 1]), `live at every sample: ${notLive === 0 ? 'yes' : `no (${notLive})`}`],
      ],
    );
  } finally {
    await browser?.close();
    await turn?.close();
    await standin?.stop();
    await link.close();
  }
});
