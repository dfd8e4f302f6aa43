/**
 * Goal `client-median`: the client adds at most 300 ms to the time from the Start chat
 * tap to the first decoded avatar video frame.
 *
 * One run, N rounds (BENCH_SESSIONS, default 5), each a session of the app and a session
 * of the reference, each in a fresh page of headless Chromium against the same stand-in:
 *   total    tap (the click's event time) → first frame (requestVideoFrameCallback's
 *            presentationTime on the avatar <video>, i.e. decoded and handed to the compositor)
 *   server   the time the stand-in keeps the client waiting, from /__standin/events:
 *            start_live in→out, start_live out → the room's media ready, offer_2 in →
 *            asr_ready out, WHEP in→out, WHEP out → peer connected (ICE + DTLS, counted
 *            as the server's), and peer connected → the first frame's packets received (the
 *            stand-in sends a keyframe once a second and ignores keyframe requests; the time
 *            comes from requestVideoFrameCallback's receiveTime). Overlaps are counted once.
 *   client   total − server.
 * "Media ready" has no event of its own: this script polls the SRS streams API every
 * 25 ms (tagged &bench=ready) and takes the stand-in's time of the first answer that
 * lists the room as active. Page and stand-in clocks are aligned by one tagged request
 * from the page (error: half its round trip, a few ms).
 *
 * Reference, in the same run: the floor. A page with no app, only the start sequence
 * written out plainly (floorClient below): route → start_live (the WHEP offer prepared
 * meanwhile) → signaling offer_2 / asr_ready ∥ the streams poll every 400 ms → WHEP →
 * first decoded frame, against the same stand-in and timed the same way. Its client time
 * is what the protocol itself costs a client (mostly the wait for the next 400 ms poll),
 * so the app's client overhead is reported as a ratio to it, beside the budget.
 *
 *   node bench/start-latency.mjs          (BENCH_SKIP_BUILD=1 reuses the last build)
 *   node bench/start-latency.mjs --quick  one round (BENCH_QUICK=1 too): checks the wiring
 * Writes bench/results/start-latency.json (bench/_report.mjs); exit 1 on a missed goal, 2 when
 * it could not measure (a session that failed included).
 */
// Functions passed to page.evaluate run in the browser.
/* global window, document, RTCPeerConnection, MediaStream */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { buildApp, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';

const BUDGET_MS = 300;
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? (isQuick() ? 1 : 5));
/** The spec's stream poll cadence, as the app polls (src/sagas/polling.ts). */
const STREAM_POLL_MS = 400;
/** The account the app's /25d/demo page starts a session for. */
const ACCOUNT = 'demo';
const OUT_DIR = join(ROOT, '.cache', 'bench-dist');

const build = () => buildApp(OUT_DIR);

/** Runs in the page before the tap: records the tap's time and the avatar's first frame (performance clock). */
function firstFrameProbe() {
  const bench = {};
  window.__bench = bench;
  document.addEventListener('click', (event) => { bench.tap ??= event.timeStamp; }, { capture: true });
  const watched = new WeakSet();
  const timer = setInterval(() => {
    const video = document.querySelector('.avatar-video video');
    if (video && !watched.has(video)) {
      watched.add(video);
      video.requestVideoFrameCallback((now, metadata) => {
        // receiveTime (WebRTC sources): the frame's last packet arrived; presentationTime: decoded and handed over.
        bench.received ??= metadata.receiveTime ?? metadata.presentationTime ?? now;
        bench.frame ??= metadata.presentationTime ?? now;
      });
    }
    if (bench.frame !== undefined) clearInterval(timer);
  }, 5);
}

/** Total length of the union of [from, to] intervals, clipped to [lo, hi]. */
function unionLength(intervals, lo, hi) {
  const sorted = intervals
    .map(([a, b]) => [Math.max(a, lo), Math.min(b, hi)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of sorted) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** The session's milestones on the stand-in clock, its server-side waiting, and the client's share. */
function phasesOf(events, { tap, received, frame }) {
  const first = (what, predicate) => {
    const found = events.find(predicate);
    if (!found) {
      const seen = events.filter((e) => e.channel !== 'http').map((e) => `${e.t} ${e.channel} ${e.dir} ${JSON.stringify(e.body).slice(0, 80)}`);
      throw new Error(`no ${what} in the stand-in's events; non-HTTP events:\n    ${seen.join('\n    ')}`);
    }
    return found;
  };
  const http = (dir, prefix) => (e) => e.channel === 'http' && e.dir === dir && String(e.body.path).startsWith(prefix);
  const startOut = first('start_live answer', http('out', '/start_live'));
  const roomId = startOut.body.body?.room_id;
  const active = (e) => Array.isArray(e.body.body?.streams) && e.body.body.streams.some((s) => s.name === roomId && s.publish?.active === true);
  const benchPoll = (e) => String(e.body.path).includes('bench=');
  const t = {
    routeIn: first('route request', http('in', '/get/route')).t,
    routeOut: first('route answer', http('out', '/get/route')).t,
    startIn: first('start_live request', http('in', '/start_live')).t,
    startOut: startOut.t,
    // Whichever poll saw it first: under load the script's own 25 ms poll can lag the client's.
    ready: first('active stream', (e) => http('out', '/api/v1/streams')(e) && active(e)).t,
    clientSaw: first('active stream (client poll)', (e) => http('out', '/api/v1/streams')(e) && !benchPoll(e) && active(e)).t,
    offerIn: first('offer_2', (e) => e.channel === 'signaling' && e.dir === 'in' && e.body.type === 'offer_2').t,
    asrReady: first('asr_ready', (e) => e.channel === 'signaling' && e.dir === 'out' && e.body.command === 'asr_ready').t,
    whepIn: first('WHEP offer', http('in', '/rtc/v1/whep/')).t,
    whepOut: first('WHEP answer', http('out', '/rtc/v1/whep/')).t,
    connected: first('peer connected', (e) => e.channel === 'whep' && e.dir === 'out' && e.body.state === 'connected').t,
  };
  const server = unionLength(
    [
      [t.startIn, t.startOut],
      [t.startOut, t.ready],
      [t.offerIn, t.asrReady],
      [t.whepIn, t.whepOut],
      [t.whepOut, t.connected],
      // The stand-in sends a keyframe once a second and ignores keyframe requests: the wait for it is the server's.
      [t.connected, received],
    ],
    tap,
    frame,
  );
  const total = frame - tap;
  return {
    total,
    server,
    client: total - server,
    steps: {
      tap: t.routeIn - tap,
      route: t.routeOut - t.routeIn,
      next: t.startIn - t.routeOut,
      start: t.startOut - t.startIn,
      boot: t.ready - t.startOut,
      poll: t.clientSaw - t.ready,
      offer: t.whepIn - Math.max(t.clientSaw, t.asrReady),
      whep: t.whepOut - t.whepIn,
      ice: t.connected - t.whepOut,
      key: received - t.connected,
      decode: frame - received,
    },
    legend: {
      tap: 'tap → route request',
      route: 'route in → out',
      next: 'route answer → start_live request',
      start: 'start_live in → out',
      boot: 'start_live out → media ready',
      poll: 'media ready → the client\'s poll sees it',
      offer: 'stream seen and room joined → WHEP request',
      whep: 'WHEP in → out',
      ice: 'WHEP out → peer connected',
      key: 'peer connected → first frame received (keyframe wait)',
      decode: 'first frame received → decoded and presented',
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function fetchJson(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${response.status}`);
  return response.status === 204 ? null : response.json();
}

/** Polls the streams API until `isDone()`; every answer is an event the timeline reads. */
async function pollStreams(base, isDone) {
  while (!isDone()) {
    await fetch(`${base}/api/v1/streams/?count=100&bench=ready`).catch(() => {});
    await sleep(25);
  }
}

/** End chat, so the room is stopped before the next session; a session that failed after its first frame is reported. */
async function endApp(page) {
  try {
    await page.getByRole('button', { name: 'End chat', exact: true }).click({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Start chat', exact: true }).waitFor({ state: 'visible', timeout: 30_000 });
  } catch (error) {
    const alert = await page.getByRole('alert').textContent({ timeout: 1000 }).catch(() => null);
    console.error(`  warning: the session could not be ended normally (${error.message.split('\n')[0]}); alert: ${alert ?? 'none'}`);
  }
}

/**
 * Runs in the floor page: the start sequence with nothing else, written the way the app
 * does each step (src/sagas/connect.ts, polling.ts, services/whep.ts), so that what is
 * left is what the protocol costs. window.__floor holds its state and any error.
 */
function floorClient({ uid, serverName, deviceId, pollMs }) {
  const floor = { error: undefined };
  window.__floor = floor;
  const video = document.querySelector('.avatar-video video');
  const post = async (path, body) => (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const gathered = (pc) =>
    new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') resolve();
      pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
    });
  async function start() {
    const route = (await post('/get/route', { uid, serverName })).data;
    const starting = post('/start_live', { app_id: uid, uid, device_id: deviceId });
    // As the app: the receive-only peer connection and its offer are made while start_live runs.
    const pc = new RTCPeerConnection({ iceServers: [] });
    floor.pc = pc;
    const stream = new MediaStream();
    pc.addEventListener('track', (event) => {
      stream.addTrack(event.track);
      video.srcObject ??= stream;
    });
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    const offer = (async () => {
      await pc.setLocalDescription(await pc.createOffer());
      await gathered(pc);
      return pc.localDescription.sdp;
    })();
    const { room_id: roomId } = await starting;
    if (!roomId) throw new Error('start_live gave no room');
    floor.roomId = roomId;
    const joined = new Promise((resolve, reject) => {
      const ws = new WebSocket(route.websockLink);
      floor.ws = ws;
      ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'offer_2', room_id: roomId, app_id: uid, deviceId })));
      ws.addEventListener('message', (message) => JSON.parse(message.data).command === 'asr_ready' && resolve());
      ws.addEventListener('error', () => reject(new Error('the signaling socket failed')));
    });
    // Every 400 ms, counted from the start of each poll.
    for (;;) {
      const polled = performance.now();
      const { streams = [] } = await (await fetch(`${route.srsLink}/api/v1/streams/?count=100`)).json();
      if (streams.some((s) => s.name === roomId && s.publish?.active === true)) break;
      await sleep(Math.max(0, pollMs - (performance.now() - polled)));
    }
    await joined;
    const answer = await fetch(`${route.srsLink}/rtc/v1/whep/?app=live&stream=${encodeURIComponent(roomId)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: await offer,
    });
    if (answer.status !== 201) throw new Error(`WHEP answered ${answer.status}`);
    floor.whep = new URL(answer.headers.get('location'), route.srsLink).href;
    await pc.setRemoteDescription({ type: 'answer', sdp: await answer.text() });
  }
  document.querySelector('button').addEventListener('click', () => {
    start().catch((error) => {
      floor.error = String(error);
    });
  });
}

/** Runs in the floor page: ends its session the way the app does (close_webrtc, WHEP DELETE, stop_live). */
async function endFloorInPage({ uid, deviceId }) {
  const floor = window.__floor;
  floor.ws?.send(JSON.stringify({ type: 'close_webrtc', room_id: floor.roomId, app_id: uid, deviceId }));
  floor.ws?.close();
  if (floor.whep) await fetch(floor.whep, { method: 'DELETE' }).catch(() => {});
  floor.pc?.close();
  if (floor.roomId) await fetch('/stop_live', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ room_id: floor.roomId, device_id: deviceId }) });
}

/**
 * The floor's page: markup only (its script is page.evaluate'd), written into the bench's
 * build so the stand-in serves it beside the app: the same origin, headers and address
 * space as the app's page (Chromium blocks a page that is not served from 127.0.0.1 from
 * opening a socket to it).
 */
const FLOOR_PAGE = 'bench-floor.html';
const writeFloorPage = () =>
  writeFileSync(
    join(OUT_DIR, FLOOR_PAGE),
    '<!doctype html>\n<meta charset="utf-8">\n<title>start-latency floor</title>\n<button>Start chat</button>\n<div class="avatar-video"><video autoplay muted playsinline></video></div>\n',
  );

/** The two clients a round times: how each opens its start screen, and ends its session. */
const CLIENTS = {
  app: {
    async open(page, base) {
      await page.goto(`${base}/25d/demo`);
    },
    end: endApp,
  },
  floor: {
    async open(page, base, session) {
      await page.goto(`${base}/25d/${FLOOR_PAGE}`);
      await page.evaluate(floorClient, { uid: ACCOUNT, serverName: 'standin', deviceId: `bench-floor-${session}`, pollMs: STREAM_POLL_MS });
    },
    async end(page, session) {
      await page.evaluate(endFloorInPage, { uid: ACCOUNT, deviceId: `bench-floor-${session}` });
    },
  },
};

async function oneSession(browser, base, clientName, session) {
  const client = CLIENTS[clientName];
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
  try {
    const page = await context.newPage();
    if (process.env.BENCH_DEBUG) page.on('console', (m) => console.error('[page]', m.type(), m.text().slice(0, 300)));
    await client.open(page, base, session);
    const start = page.getByRole('button', { name: 'Start chat', exact: true });
    await start.waitFor({ state: 'visible', timeout: 60_000 });
    await fetchJson(`${base}/__standin/events`, { method: 'DELETE' });
    // Aligns the page's performance clock with the stand-in's event clock.
    const [sent, received] = await page.evaluate(async (url) => {
      const t0 = performance.now();
      await fetch(url);
      return [t0, performance.now()];
    }, `${base}/api/v1/streams/?count=1&bench=clock`);
    await page.evaluate(firstFrameProbe);

    let done = false;
    const poller = pollStreams(base, () => done);
    try {
      await start.click();
      await page.waitForFunction(() => window.__bench?.frame !== undefined || window.__floor?.error !== undefined, null, { timeout: 30_000, polling: 20 });
    } finally {
      done = true;
      await poller;
    }
    const floorError = await page.evaluate(() => window.__floor?.error);
    if (floorError) throw new Error(`the floor client failed: ${floorError}`);
    const marks = await page.evaluate(() => ({ ...window.__bench }));
    const events = await fetchJson(`${base}/__standin/events`);
    const clock = events.find((e) => e.channel === 'http' && e.dir === 'in' && String(e.body.path).includes('bench=clock'));
    if (!clock) throw new Error('the clock alignment request is missing from the events');
    const offset = clock.t - (sent + received) / 2;
    const phases = phasesOf(events, { tap: marks.tap + offset, received: marks.received + offset, frame: marks.frame + offset });

    await client.end(page, session);
    return phases;
  } finally {
    await context.close();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The per-session table of one client, in ms: total, server, client and each step, then their medians. */
function sessionRows(runs) {
  const columns = Object.keys(runs[0].steps);
  const figures = (r) => [r.total, r.server, r.client, ...columns.map((c) => r.steps[c])];
  const medians = figures(runs[0]).map((_, k) => median(runs.map((r) => figures(r)[k])));
  return {
    head: ['session', 'total', 'server', 'client', ...columns],
    rows: [...runs.map((r, i) => [String(i + 1), ...figures(r).map(Math.round)]), ['median', ...medians.map(Math.round)]],
  };
}

function printRuns(title, runs) {
  const { head, rows } = sessionRows(runs);
  console.log(`  ${title}`);
  for (const row of [head, ...rows]) console.log(`  ${row.map((c, i) => String(c).padStart(i === 0 ? 10 : 7)).join(' ')}`);
}

await runBench('start-latency', { what: 'Start chat tap → first decoded avatar frame, the client\'s share (total − the stand-in\'s waiting)', chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { rounds: SESSIONS, streamPollMs: STREAM_POLL_MS, viewport: '390×844' };
  build();
  writeFloorPage();
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  const runs = { app: [], floor: [] };
  const failures = [];
  try {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      // Alternating app and floor, so a change in the machine's load reaches both alike; which goes
      // first alternates too, so the first session of a cold browser is not always the same client's.
      for (let i = 0; i < SESSIONS; i += 1) {
        for (const client of i % 2 === 0 ? ['app', 'floor'] : ['floor', 'app']) {
          try {
            runs[client].push(await oneSession(browser, standin.url, client, i + 1));
          } catch (error) {
            // One broken session (the shared machine can be very slow) must not hide the others' numbers.
            failures.push(`${client} session ${i + 1}: ${error.message.split('\n')[0]}`);
            console.error(`  ${client} session ${i + 1} failed: ${error.message}`);
          }
        }
      }
    } finally {
      await browser.close();
    }
  } finally {
    await standin.stop();
  }

  const strip = ({ legend: _legend, ...r }) => ({ total: Math.round(r.total), server: Math.round(r.server), client: Math.round(r.client), steps: Object.fromEntries(Object.entries(r.steps).map(([k, v]) => [k, Math.round(v)])) });
  report.figures = { app: runs.app.map(strip), floor: runs.floor.map(strip), failures, steps: (runs.app[0] ?? runs.floor[0])?.legend ?? null };
  for (const failure of failures) report.error(`a session failed and is not counted: ${failure}`);
  if (runs.app.length === 0) throw new Error('no session of the app reached its first frame');

  const client = median(runs.app.map((r) => r.client));
  const floorMedian = runs.floor.length ? median(runs.floor.map((r) => r.client)) : null;
  report.figures.appClientMedianMs = Math.round(client);
  report.figures.floorClientMedianMs = floorMedian === null ? null : Math.round(floorMedian);
  report.goal('client-median', { label: 'client overhead, tap → first decoded frame minus the stand-in\'s waiting, median', value: Math.round(client), limit: BUDGET_MS, unit: 'ms' });
  report.ratio('app-vs-floor', {
    label: 'the app\'s client overhead / the floor\'s (the start sequence with no app), medians',
    subject: ['app', Math.round(client)],
    reference: ['floor', floorMedian === null ? null : Math.round(floorMedian)],
    unit: 'ms',
  });
  // The wait for the next poll falls anywhere in 0–400 ms in either client, by chance: without it the two compare more steadily.
  const withoutPoll = (list) => (list.length ? Math.round(median(list.map((r) => r.client - r.steps.poll))) : null);
  report.ratio('app-vs-floor-without-poll', {
    label: 'the same, each session\'s wait for the next stream poll taken out, medians',
    subject: ['app', withoutPoll(runs.app)],
    reference: ['floor', withoutPoll(runs.floor)],
    unit: 'ms',
  });
  report.ratio('of-budget', { label: 'the app\'s client overhead / the budget', subject: ['app', Math.round(client)], reference: ['budget', BUDGET_MS], unit: 'ms' });
  const poll = median(runs.app.map((r) => r.steps.poll));
  report.note(
    `Of the app's client time, the wait for the next ${STREAM_POLL_MS} ms stream poll (the spec's cadence) was ${Math.round(poll)} ms (median); the app's slowest session's client time was ${Math.round(Math.max(...runs.app.map((r) => r.client)))} ms.`,
  );
  report.note(`Steps: ${Object.entries(runs.app[0].legend).map(([k, v]) => `${k} = ${v}`).join('; ')}.`);
  for (const [name, list] of [['the app', runs.app], ['the floor (reference: the start sequence with no app)', runs.floor]]) {
    if (list.length === 0) continue;
    const { head, rows } = sessionRows(list);
    report.table(`${name}, ms`, head, rows);
  }

  console.log(`start-latency: Start chat tap → first decoded avatar frame, ${SESSIONS} rounds (ms)`);
  printRuns('app', runs.app);
  if (runs.floor.length) printRuns('floor (no app)', runs.floor);
});
