/**
 * Budget: the JavaScript needed to paint the pre-session screen is at most
 * 150 KB gzip, and the Speech SDK, onnxruntime-web and the VAD model are never
 * on that path.
 *
 * Builds the app (mode standin) into .cache/bench-dist (dist/ is left alone for
 * whoever is running tests), serves it from its own stand-in on a free port,
 * opens /25d/demo in headless Chromium at 390×844 and records every JavaScript
 * response until Start chat is visible and the network is idle. Each response
 * is gzip-sized with zlib (level 9, like the gzip-size package) and summed.
 *
 * The forbidden chunks are found from the build's source maps, not from file
 * names: any chunk whose sources come from the SDK, onnxruntime-web or the VAD
 * package. Loading one of them, or any .onnx / .wasm / ort file, fails the run.
 *
 *   node bench/presession-bundle.mjs          (BENCH_SKIP_BUILD=1 reuses the last build)
 * Exit code 1 when a budget is broken.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { buildApp, CHROMIUM_ARGS, ROOT, startStandin } from './_setup.mjs';

const BUDGET_BYTES = 150 * 1024;
const OUT_DIR = join(ROOT, '.cache', 'bench-dist');
/** Packages that must stay off the pre-session path. */
const HEAVY_PACKAGES = ['microsoft-cognitiveservices-speech-sdk', 'onnxruntime-web', '@ricky0123/vad-web'];
/** Requests that are heavy by their name alone. */
const HEAVY_URL = /\.onnx(\?|$)|\.wasm(\?|$)|(^|[/._-])ort([._-]|$)/i;

const build = () => buildApp(OUT_DIR);

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

async function measure(url) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    const requested = [];
    const scripts = new Map();
    page.on('request', (request) => requested.push(request.url()));
    page.on('response', (response) => {
      const type = response.headers()['content-type'] ?? '';
      const isJs = response.request().resourceType() === 'script' || /javascript/.test(type);
      if (isJs && response.ok()) scripts.set(response.url(), response.body().catch(() => null));
    });
    await page.goto(`${url}/25d/demo`);
    await page.getByRole('button', { name: 'Start chat', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    const sized = [];
    for (const [scriptUrl, body] of scripts) {
      const bytes = await body;
      if (!bytes) throw new Error(`could not read the body of ${scriptUrl}`);
      sized.push({ url: scriptUrl, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
    }
    return { requested, scripts: sized };
  } finally {
    await browser.close();
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

build();
const heavy = heavyChunks();
const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
let result;
try {
  result = await measure(standin.url);
} finally {
  await standin.stop();
}

const total = result.scripts.reduce((sum, s) => sum + s.gzip, 0);
const problems = [];
for (const s of result.scripts) {
  const file = new URL(s.url).pathname.split('/').pop() ?? '';
  if (heavy.has(file)) problems.push(`${file} carries ${heavy.get(file).join(', ')}`);
}
for (const requestUrl of result.requested) {
  if (HEAVY_URL.test(new URL(requestUrl).pathname)) problems.push(`requested ${requestUrl}`);
}
if (total > BUDGET_BYTES) problems.push(`JavaScript is ${kb(total)} gzip, over the ${kb(BUDGET_BYTES)} budget`);

console.log('presession-bundle: JavaScript loaded to paint the pre-session screen (/25d/demo, 390×844)');
for (const s of result.scripts.sort((a, b) => b.gzip - a.gzip)) {
  console.log(`  ${new URL(s.url).pathname.padEnd(44)} ${kb(s.raw).padStart(10)} raw ${kb(s.gzip).padStart(10)} gzip`);
}
console.log(`  heavy chunks in the build: ${heavy.size === 0 ? 'none' : [...heavy].map(([f, p]) => `${f} (${p.join(', ')})`).join('; ')}`);
console.log(`  total ${kb(total)} gzip = ${((total / BUDGET_BYTES) * 100).toFixed(1)}% of the ${kb(BUDGET_BYTES)} budget (ratio ${(total / BUDGET_BYTES).toFixed(3)})`);
if (problems.length > 0) {
  for (const p of problems) console.log(`  FAIL: ${p}`);
  process.exitCode = 1;
} else {
  console.log('  PASS: within budget, no Speech SDK / onnxruntime / VAD model on the path');
}
