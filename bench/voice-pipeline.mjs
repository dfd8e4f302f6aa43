/**
 * Voice pipeline benchmarks (issue 5): our pipeline (capture worklet → Silero VAD in a
 * worker) side by side with @ricky0123/vad-web 0.0.31's MicVAD (same model, thresholds
 * and frame settings; inference on the main thread), in one Chromium run, on the same
 * fake-microphone audio (tests/fixtures/call-two-questions.wav, looped), at each CPU
 * throttle rate (CDP Emulation.setCPUThrottlingRate, default 1× and 4×).
 *
 * Per rate, in a fresh page, each phase traced on its own (bench/voice/trace.mjs):
 *   idle    the page with the microphone open and no VAD: the main-thread baseline
 *   ours    startVoicePipeline, then a steady window of BENCH_VOICE_SECONDS
 *   vadweb  MicVAD, the same
 *   both    both at once on the same samples (bench/voice/page/input.ts), with the app's
 *           recognizer on the stand-in's speech service: segment agreement and end of
 *           speech → send (replayed through the app's sentence rule)
 *   both16k the same two with a 16 kHz AudioContext (no resampling): segment agreement only
 *   app     the real app (vite build --mode standin) live on the stand-in, a hands-free call:
 *           end of speech → send from the app's own session log (bench/voice/app.mjs)
 *
 *   node bench/voice-pipeline.mjs
 *   env: BENCH_VOICE_SECONDS (30), BENCH_VOICE_IDLE_SECONDS (15), BENCH_VOICE_BOTH_SECONDS (25),
 *        BENCH_VOICE_RATES ("1,4"), BENCH_VOICE_CONTEXT_RATE (unset: the device's rate),
 *        BENCH_VOICE_APP_SECONDS (45), BENCH_VOICE_APP=0 (skip the app)
 * Prints a table, writes bench/results/voice-pipeline.json. Exits non-zero only on a crash.
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { tsImport } from 'tsx/esm/api';
import { audioAnchor, compareSegments, eventLag, sendLatency, soloFigures } from './voice/metrics.mjs';
import { measureApp } from './voice/app.mjs';
import { idlePhase, vadPhase } from './voice/phases.mjs';
import { serveStatic } from './voice/serve.mjs';
import { printTable } from './voice/table.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'call-two-questions.wav');
const RESULTS = join(ROOT, 'bench', 'results', 'voice-pipeline.json');
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const SECONDS = env('BENCH_VOICE_SECONDS', 30);
const IDLE_SECONDS = env('BENCH_VOICE_IDLE_SECONDS', 15);
const BOTH_SECONDS = env('BENCH_VOICE_BOTH_SECONDS', 25);
const APP_SECONDS = env('BENCH_VOICE_APP_SECONDS', 45);
const RATES = (process.env.BENCH_VOICE_RATES ?? '1,4').split(',').map(Number);
/** Unset: the device's rate, as in the app. 16000 makes both resamplers pass-through. */
const CONTEXT_RATE = process.env.BENCH_VOICE_CONTEXT_RATE ? Number(process.env.BENCH_VOICE_CONTEXT_RATE) : undefined;

const { startStandin } = await tsImport('../tests/support/standin.ts', import.meta.url);
const { CHROMIUM_ARGS } = await tsImport('../playwright.config.ts', import.meta.url);

function run(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${what} failed with code ${result.status}`);
}

const VITE = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');

function build() {
  const dir = mkdtempSync(join(tmpdir(), 'voice-bench-'));
  run([VITE, 'build', '--config', 'bench/voice/vite.config.ts', '--outDir', dir, '--emptyOutDir'], 'vite build (bench page)');
  return dir;
}

/** The app as the stand-in serves it (npm run build:local); null when it does not build today. */
function buildApp() {
  if (process.env.BENCH_VOICE_APP === '0') return null;
  const dir = mkdtempSync(join(tmpdir(), 'voice-bench-app-'));
  try {
    run([VITE, 'build', '--mode', 'standin', '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'], 'vite build --mode standin');
    return dir;
  } catch (err) {
    console.warn(`the app did not build, its end of speech → send is skipped: ${err.message}`);
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

async function measureRate(browser, rate, speechHost) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) problems.push(`console: ${msg.text()}`);
  });
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    await page.goto(SERVED.url);
    await page.waitForFunction(() => window.voiceBench !== undefined);
    const { sampleRate } = await page.evaluate((r) => window.voiceBench.open(r), CONTEXT_RATE);
    console.log(`  rate ${rate}×: idle baseline (${IDLE_SECONDS} s)…`);
    const idle = await idlePhase(browser, page, IDLE_SECONDS);
    const solo = {};
    for (const name of ['ours', 'vadweb']) {
      console.log(`  rate ${rate}×: ${name} alone (start-up + ${SECONDS} s)…`);
      const phase = await vadPhase(browser, page, [name], SECONDS);
      const [runRecord] = phase.runs;
      solo[name] = soloFigures({ name, trace: phase.trace, run: runRecord, pageLongTasks: phase.pageLongTasks(name), baseline: idle.baseline, rate });
    }
    console.log(`  rate ${rate}×: both at once${speechHost ? ' + recognizer' : ''} (${BOTH_SECONDS} s)…`);
    const both = await vadPhase(browser, page, ['ours', 'vadweb'], BOTH_SECONDS, { trace: false, ...(speechHost && { speechHost }) });
    const [ours, vadweb] = ['ours', 'vadweb'].map((name) => both.runs.find((r) => r.name === name));
    // The same comparison with a 16 kHz context, where neither VAD resamples: what is
    // left of any difference then is the model wrapper and the frame state machine.
    let segments16k = null;
    if (sampleRate !== 16_000) {
      console.log(`  rate ${rate}×: both at once, 16 kHz context (${BOTH_SECONDS} s)…`);
      await page.evaluate(() => window.voiceBench.dispose());
      await page.evaluate(() => window.voiceBench.open(16_000));
      const at16k = await vadPhase(browser, page, ['ours', 'vadweb'], BOTH_SECONDS, { trace: false });
      segments16k = compareSegments(...['ours', 'vadweb'].map((name) => at16k.runs.find((r) => r.name === name)));
    }
    await page.evaluate(() => window.voiceBench.dispose());
    return {
      rate,
      sampleRate,
      idle: {
        mainMsPerMin: { cpu: round1(idle.baseline.cpu), wall: round1(idle.baseline.wall) },
        longTasks: idle.longTasks,
      },
      ours: solo.ours,
      vadweb: solo.vadweb,
      segments: { ...compareSegments(ours, vadweb), oursDroppedFrames: ours.stats.at(-1)?.dropped ?? 0 },
      segments16k,
      eventLagMs: { ours: eventLag(ours, audioAnchor(vadweb)), vadweb: eventLag(vadweb, audioAnchor(vadweb)) },
      endOfSpeechToSend: both.speech
        ? { ours: sendLatency(both.sentences.ours), vadweb: sendLatency(both.sentences.vadweb), recognizerErrors: both.speech.errors }
        : null,
      problems,
    };
  } finally {
    await context.close();
  }
}

const round1 = (v) => Number(v.toFixed(1));

/** The real app's end of speech → send at `rate`; a failure is reported, not thrown. */
async function appFigures(browser, rate) {
  if (!appDir || !standin) return { skipped: appDir ? 'no stand-in' : 'the app was not built' };
  console.log(`  rate ${rate}×: the app, a hands-free call (${APP_SECONDS} s)…`);
  try {
    return await measureApp(browser, { origin: standin.url, rate, seconds: APP_SECONDS, root: new URL('..', import.meta.url) });
  } catch (err) {
    console.warn(`  the app's call failed: ${err.message}`);
    return { skipped: `the call failed: ${err.message.split('\n')[0]}` };
  }
}

run([join(ROOT, 'scripts', 'make-fixtures.mjs')], 'make-fixtures');
const dir = build();
const appDir = buildApp();
const SERVED = await serveStatic(dir, '/25d/');
// The stand-in reports healthy only with an app build to serve: the app, else the bench page.
const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: appDir ?? dir } }).catch((err) => {
  console.warn(`stand-in unavailable, end of speech → send is skipped: ${err.message}`);
  return null;
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [...CHROMIUM_ARGS, `--use-file-for-fake-audio-capture=${FIXTURE}`],
});
const chromiumVersion = browser.version();
const load = { start: loadavg()[0] };
const results = [];
try {
  for (const rate of RATES) {
    console.log(`voice pipeline vs vad-web at CPU throttle ${rate}×`);
    const result = await measureRate(browser, rate, standin ? standin.url.replace(/^http/, 'ws') : undefined);
    result.app = await appFigures(browser, rate);
    results.push(result);
  }
} finally {
  load.end = loadavg()[0];
  await browser.close();
  await standin?.stop();
  await SERVED.close();
  for (const d of [dir, appDir]) if (d) rmSync(d, { recursive: true, force: true });
}

const report = {
  date: new Date().toISOString(),
  chromium: chromiumVersion,
  machine: { cpus: cpus().length, loadavg1m: load },
  settings: {
    fixture: 'tests/fixtures/call-two-questions.wav (looped)',
    seconds: SECONDS,
    idleSeconds: IDLE_SECONDS,
    bothSeconds: BOTH_SECONDS,
    appSeconds: APP_SECONDS,
  },
  rates: results,
};
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
printTable(report);
console.log(`\nresults: ${RESULTS.slice(ROOT.length)}`);
