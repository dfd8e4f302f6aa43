/**
 * Goals: the JavaScript needed to paint the pre-session screen is at most 150 KB
 * gzip (`presession-gzip`), and the Speech SDK, onnxruntime-web and the VAD model
 * are never on that path (`forbidden-on-path`). The live chunk (the live screen, chat,
 * voice and stats: src/live/, found from the source maps) is fetched while the
 * pre-session screen is read: it is reported beside that path, not on it, and counted
 * in what goes on the wire before Start chat.
 *
 * Builds the app (mode standin) into .cache/bench-dist (dist/ is left alone for
 * whoever is running tests), serves it from its own stand-in on a free port,
 * opens /25d/demo in headless Chromium at 390×844 and records every JavaScript
 * response until Start chat is visible and the network is idle. Each response
 * is gzip-sized with zlib (level 9, like the gzip-size package) and summed.
 *
 * The forbidden chunks are found from the build's source maps, not from file
 * names: any chunk whose sources come from the SDK, onnxruntime-web or the VAD
 * package. Loading one of them, or any .onnx / .wasm / ort file, misses the goal.
 *
 * Reference, from the same build: every script the page could load, concatenated and
 * gzipped as one file, i.e. what one bundle without code splitting would make the
 * pre-session screen load. Workers and worklets are left out of it: they are entries
 * of their own, loaded from their own URL whether the page's code is split or not.
 * The split path's size is reported as a ratio to it, beside the budget.
 *
 * On the wire (`wire-presession`): what the browser received (Accept-Encoding br, gzip, as
 * Chromium asks) for the HTML, scripts, stylesheets, the locale and the prefetched live chunk
 * before Start chat is tapped,
 * ≤ 150 KB; images are reported beside it. The voice assets a call needs (the Speech SDK
 * chunk, the capture worklet, the VAD worker, onnxruntime's wasm, the model) are fetched
 * from the same stand-in with `Accept-Encoding: br, gzip` and their total reported.
 *
 * Start chat's interaction to next paint (`inp-start-chat`) at 4× CPU throttle (CDP),
 * from the Event Timing API, ≤ 100 ms: the median of INP_RUNS fresh page loads, each
 * tapping once when the pre-session screen and the live chunk's prefetch are done (one tap is noisy
 * on a loaded machine); the session it starts is cancelled.
 *
 *   node bench/presession-bundle.mjs          (BENCH_SKIP_BUILD=1 reuses the last build)
 *   node bench/presession-bundle.mjs --quick  the same single page load, marked quick
 * Writes bench/results/presession-bundle.json (bench/_report.mjs); exit 1 on a missed goal,
 * 2 when it could not measure.
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { get } from 'node:http';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { tsImport } from 'tsx/esm/api';
import { buildApp, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';

const { liveChunkFiles } = await tsImport('../tests/support/chunks.ts', import.meta.url);
import { runBench } from './_report.mjs';

const BUDGET_BYTES = 150 * 1024;
/** Page loads whose Start chat tap is timed; the goal judges their median. */
const INP_RUNS = 5;
const OUT_DIR = join(ROOT, '.cache', 'bench-dist');
/** Packages that must stay off the pre-session path. */
const HEAVY_PACKAGES = ['microsoft-cognitiveservices-speech-sdk', 'onnxruntime-web', '@ricky0123/vad-web'];
/** Requests that are heavy by their name alone. */
const HEAVY_URL = /\.onnx(\?|$)|\.wasm(\?|$)|(^|[/._-])ort([._-]|$)/i;

/** Scripts that are entries of their own (a Worker's or an AudioWorklet's URL), never part of the page's bundle. */
const OWN_ENTRY = /\.(worker|worklet)-[^/]*\.js$/;

const build = () => buildApp(OUT_DIR);

/** The built chunks that make the live chunk (its entry and the view it shares with the replay viewer). */
const liveChunks = () => new Set(liveChunkFiles(join(OUT_DIR, 'assets')).scripts);

/** The reference: every page script of the build as one gzipped file (see the header). */
function unsplitBundle() {
  const assets = join(OUT_DIR, 'assets');
  const files = readdirSync(assets).filter((f) => f.endsWith('.js') && !OWN_ENTRY.test(f)).sort();
  const all = Buffer.concat(files.map((f) => readFileSync(join(assets, f))));
  return { files, raw: all.length, gzip: gzipSync(all, { level: 9 }).length, leftOut: readdirSync(assets).filter((f) => OWN_ENTRY.test(f)) };
}

/** file name → the heavy packages its source map says it contains. */
function heavyChunks() {
  const assets = join(OUT_DIR, 'assets');
  const found = new Map();
  for (const file of readdirSync(assets).filter((f) => f.endsWith('.js.map'))) {
    const { sources = [] } = JSON.parse(readFileSync(join(assets, file), 'utf8'));
    // A `?url` import (e.g. the ort wasm's address for a later prefetch) bundles only the URL string.
    const code = sources.filter((s) => !/\?(.*&)?url(&|$)/.test(s));
    const hits = HEAVY_PACKAGES.filter((pkg) => code.some((s) => s.includes(`node_modules/${pkg}/`)));
    if (hits.length > 0) found.set(file.replace(/\.map$/, ''), hits);
  }
  return found;
}

/** Start chat's interaction to next paint at 4× CPU: the longest Event Timing entry of that tap. */
async function startChatInp(page) {
  await page.evaluate(() => {
    window.__events = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.interactionId) window.__events.push({ name: e.name, duration: e.duration });
    }).observe({ type: 'event', durationThreshold: 16, buffered: false });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.getByRole('button', { name: 'Start chat', exact: true }).tap();
  // Event Timing reports an entry once its next paint is done: a second later every part of the tap is in.
  await page.getByRole('button', { name: 'Cancel', exact: true }).waitFor({ state: 'visible', timeout: 10_000 });
  await page.waitForTimeout(1000);
  const events = await page.evaluate(() => window.__events);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await page.waitForTimeout(400);
  // The session it started ends: Cancel while it connects, End chat if it is already live
  // (the stand-in is quick on an idle machine).
  await page.getByRole('button', { name: 'Cancel', exact: true }).or(page.getByRole('button', { name: 'End chat', exact: true })).first().click();
  // Entries under the 16 ms threshold are not reported: a tap with none took less than 16 ms.
  return { ms: events.length === 0 ? 16 : Math.max(...events.map((e) => e.duration)), events };
}

/** The voice assets a call fetches, as the stand-in sends them to a client that accepts br and gzip. */
async function voiceAssetsOnWire(url) {
  const assets = readdirSync(join(OUT_DIR, 'assets')).filter((f) => /speech\.sdk.*\.js$|vad\.worker.*\.js$|capture\.worklet.*\.js$|\.wasm$|\.onnx$/.test(f));
  const paths = assets.map((f) => `/25d/assets/${f}`);
  const sized = [];
  for (const path of paths) {
    const { bytes, encoding } = await new Promise((resolve, reject) => {
      get(`${url}${path}`, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
        let n = 0;
        res.on('data', (chunk) => (n += chunk.length));
        res.on('end', () => resolve({ bytes: n, encoding: res.headers['content-encoding'] ?? 'identity' }));
      }).on('error', reject);
    });
    sized.push({ path, bytes, encoding, raw: statSync(join(OUT_DIR, path.replace('/25d/', ''))).size });
  }
  return sized;
}

/** Waits until every file of the live chunk is among `urls()` (what the page has fetched so far), then for the network to rest. */
async function untilPrefetched(page, live, urls) {
  await page.waitForLoadState('networkidle');
  const isLive = (u) => live.has(new URL(u).pathname.split('/').pop() ?? '');
  for (let waited = 0; new Set(urls().filter(isLive)).size < live.size; waited += 100) {
    if (waited > 10_000) throw new Error('the live chunk was not fetched within 10 s of the pre-session screen');
    await page.waitForTimeout(100);
  }
  await page.waitForLoadState('networkidle');
}

async function measure(url, live) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    const requested = [];
    const scripts = new Map();
    const finished = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfinished', (request) => finished.push(request));
    page.on('response', (response) => {
      const type = response.headers()['content-type'] ?? '';
      const isJs = response.request().resourceType() === 'script' || /javascript/.test(type);
      if (isJs && response.ok()) scripts.set(response.url(), response.body().catch(() => null));
    });
    await page.goto(`${url}/25d/demo`);
    await page.getByRole('button', { name: 'Start chat', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
    await untilPrefetched(page, live, () => [...scripts.keys()]);
    const sized = [];
    for (const [scriptUrl, body] of scripts) {
      const bytes = await body;
      if (!bytes) throw new Error(`could not read the body of ${scriptUrl}`);
      sized.push({ url: scriptUrl, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
    }
    const wire = [];
    for (const request of finished) {
      const { responseBodySize, responseHeadersSize } = await request.sizes();
      const headers = await request.response().then((r) => r?.allHeaders() ?? {});
      wire.push({ path: new URL(request.url()).pathname, type: request.resourceType(), bytes: responseBodySize + responseHeadersSize, encoding: headers['content-encoding'] ?? 'identity' });
    }
    // What the pre-session path requested: the session Start chat starts may fetch the voice assets once live.
    const presessionRequests = [...requested];
    const taps = [await startChatInp(page)];
    await context.close();
    for (let run = 1; run < INP_RUNS; run += 1) {
      const again = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
      const tapPage = await again.newPage();
      const fetched = [];
      tapPage.on('requestfinished', (request) => fetched.push(request.url()));
      await tapPage.goto(`${url}/25d/demo`);
      await tapPage.getByRole('button', { name: 'Start chat', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
      await untilPrefetched(tapPage, live, () => fetched);
      await tapPage.waitForTimeout(1000);
      taps.push(await startChatInp(tapPage));
      await again.close();
    }
    const sorted = taps.map((t) => t.ms).sort((a, b) => a - b);
    const inp = { ms: sorted[Math.floor(sorted.length / 2)], runs: taps.map((t) => t.ms), events: taps.map((t) => t.events) };
    return { requested: presessionRequests, scripts: sized, wire, inp };
  } finally {
    await browser.close();
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
/** A built file's name without its content hash, so the README does not change with every build. */
const unhashed = (file) => file.replace(/-[\w-]{8}(\.\w+)$/, '-*$1');

await runBench('presession-bundle', { what: 'JavaScript and bytes on the wire until the pre-session screen paints; Start chat INP', chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { page: '/25d/demo', viewport: '390×844', gzipLevel: 9, budgetBytes: BUDGET_BYTES };
  build();
  const heavy = heavyChunks();
  const unsplit = unsplitBundle();
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  let result;
  try {
    result = await measure(standin.url, liveChunks());
    result.voice = await voiceAssetsOnWire(standin.url);
  } finally {
    await standin.stop();
  }

  const live = liveChunks();
  const isLive = (url) => live.has(new URL(url).pathname.split('/').pop() ?? '');
  const prefetched = result.scripts.filter((s) => isLive(s.url));
  if (live.size === 0 || prefetched.length !== live.size) throw new Error(`the live chunk (${[...live].join(', ') || 'not in the build'}) was not fetched before Start chat`);
  result.scripts = result.scripts.filter((s) => !isLive(s.url));
  const total = result.scripts.reduce((sum, s) => sum + s.gzip, 0);
  const liveTotal = prefetched.reduce((sum, s) => sum + s.gzip, 0);
  const forbidden = [];
  for (const s of result.scripts) {
    const file = new URL(s.url).pathname.split('/').pop() ?? '';
    if (heavy.has(file)) forbidden.push(`${file} carries ${heavy.get(file).join(', ')}`);
  }
  for (const requestUrl of result.requested) {
    if (HEAVY_URL.test(new URL(requestUrl).pathname)) forbidden.push(`requested ${new URL(requestUrl).pathname}`);
  }
  if (result.scripts.length === 0) throw new Error('no script was loaded: nothing to measure');

  const scripts = result.scripts
    .sort((a, b) => b.gzip - a.gzip)
    .map((s) => ({ path: new URL(s.url).pathname, rawBytes: s.raw, gzipBytes: s.gzip }));
  report.figures = {
    presessionGzipBytes: total,
    liveChunkGzipBytes: liveTotal,
    liveChunk: prefetched.map((s) => ({ path: new URL(s.url).pathname, rawBytes: s.raw, gzipBytes: s.gzip })),
    scripts,
    forbidden,
    heavyChunksInBuild: Object.fromEntries(heavy),
    unsplit: { gzipBytes: unsplit.gzip, rawBytes: unsplit.raw, files: unsplit.files, leftOut: unsplit.leftOut },
  };
  // Three decimals: finer than one byte (1/1024 KB), so rounding never moves a size across the budget.
  const KB = (bytes) => Number((bytes / 1024).toFixed(3));
  report.goal('presession-gzip', { label: 'JavaScript loaded until the pre-session screen paints, gzip', value: KB(total), limit: KB(BUDGET_BYTES), unit: 'KB', digits: 1 });
  report.goal('forbidden-on-path', { label: 'Speech SDK / onnxruntime-web / VAD chunks, .wasm or .onnx requests on that path', value: forbidden.length, limit: 0, unit: '' });
  const CODE = new Set(['document', 'script', 'stylesheet', 'fetch', 'xhr']);
  const wireCode = result.wire.filter((w) => CODE.has(w.type) && w.path !== '/ue/userinfo');
  const wireCodeBytes = wireCode.reduce((n, w) => n + w.bytes, 0);
  const wireImages = result.wire.filter((w) => w.type === 'image').reduce((n, w) => n + w.bytes, 0);
  const voiceBytes = result.voice.reduce((n, v) => n + v.bytes, 0);
  report.figures.wire = result.wire;
  report.figures.voiceOnWire = result.voice;
  report.figures.startChatEvents = result.inp.events;
  report.goal('wire-presession', { label: 'on the wire before Start chat: HTML, scripts, styles, locale and the prefetched live chunk (br/gzip as sent)', value: KB(wireCodeBytes), limit: KB(BUDGET_BYTES), unit: 'KB', digits: 1 });
  report.goal('inp-start-chat', { label: `Start chat, interaction to next paint at 4× CPU, median of ${INP_RUNS} page loads (${result.inp.runs.map(Math.round).join(', ')} ms)`, value: Math.round(result.inp.ms), limit: 100, unit: 'ms' });
  report.note(`On the wire besides: the account's images ${kb(wireImages)}; the voice assets of a call ${kb(voiceBytes)} (${result.voice.map((v) => `\`${unhashed(v.path.split('/').pop())}\` ${kb(v.bytes)} ${v.encoding} of ${kb(v.raw)}`).join(', ')}).`);
  report.table(
    'On the wire (Accept-Encoding: br, gzip)',
    ['what', 'bytes', 'encoding'],
    [
      ...wireCode.map((w) => [`\`${unhashed(w.path.split('/').pop() || w.path)}\``, kb(w.bytes), w.encoding]),
      ['**pre-session total**', `**${kb(wireCodeBytes)}**`, ''],
      ['the account\'s images', kb(wireImages), ''],
      ...result.voice.map((v) => [`voice: \`${unhashed(v.path.split('/').pop())}\``, kb(v.bytes), v.encoding]),
      ['**voice assets of a call, total**', `**${kb(voiceBytes)}**`, ''],
    ],
  );
  report.ratio('split-vs-unsplit', {
    label: 'the pre-session path / every page script of the same build as one bundle (gzip)',
    subject: ['pre-session path', KB(total)],
    reference: ['one unsplit bundle', KB(unsplit.gzip)],
    unit: 'KB',
    valueDigits: 1,
  });
  report.ratio('of-budget', { label: 'the pre-session path / the budget', subject: ['pre-session path', KB(total)], reference: ['budget', KB(BUDGET_BYTES)], unit: 'KB', valueDigits: 1 });
  for (const f of forbidden) report.note(`on the pre-session path: ${f}`);
  report.note(
    `Heavy chunks in the build, all off the path unless listed above: ${heavy.size === 0 ? 'none' : [...heavy].map(([f, p]) => `\`${unhashed(f)}\` (${p.join(', ')})`).join('; ')}.`,
  );
  report.table(
    'Scripts loaded until the pre-session screen paints',
    ['script', 'raw', 'gzip'],
    [
      ...scripts.map((s) => [`\`${unhashed(s.path.split('/').pop())}\``, kb(s.rawBytes), kb(s.gzipBytes)]),
      ['**total**', kb(scripts.reduce((n, s) => n + s.rawBytes, 0)), `**${kb(total)}**`],
      ...prefetched.map((s) => [`then, prefetched: \`${unhashed(new URL(s.url).pathname.split('/').pop())}\``, kb(s.raw), kb(s.gzip)]),
      [`reference: one unsplit bundle (${unsplit.files.length} scripts)`, kb(unsplit.raw), kb(unsplit.gzip)],
    ],
  );

  console.log('presession-bundle: JavaScript loaded to paint the pre-session screen (/25d/demo, 390×844)');
  for (const s of scripts) console.log(`  ${s.path.padEnd(44)} ${kb(s.rawBytes).padStart(10)} raw ${kb(s.gzipBytes).padStart(10)} gzip`);
  for (const s of prefetched) console.log(`  prefetched: ${new URL(s.url).pathname.padEnd(32)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzip`);
  console.log(`  on the wire: pre-session ${kb(wireCodeBytes)}, images ${kb(wireImages)}, voice assets ${kb(voiceBytes)}; Start chat INP at 4x ${Math.round(result.inp.ms)} ms (median of ${result.inp.runs.map(Math.round).join(', ')})`);
  console.log(`  one unsplit bundle of the same build: ${kb(unsplit.gzip)} gzip (${unsplit.files.length} scripts; left out as entries of their own: ${unsplit.leftOut.join(', ') || 'none'})`);
});
