/**
 * Voice pipeline benchmarks (issue 5): our pipeline (capture worklet → Silero VAD in a
 * worker) side by side with @ricky0123/vad-web 0.0.31's MicVAD (same model, thresholds
 * and frame settings; inference on the main thread), in one Chromium run, on the same
 * fake-microphone audio (tests/fixtures/call-two-questions.wav, looped), at each CPU
 * throttle rate (CDP Emulation.setCPUThrottlingRate, default 1× and 4×). A rate above 1× is
 * Lighthouse's: the phone its 4× makes of a desktop of benchmarkIndex 1750, so this host is
 * slowed 4 × its own index / 1750 (bench/_host.mjs), and the worker's CPU time, which CDP
 * cannot throttle, is multiplied by the same.
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
 * The goals (bench/voice/goals.mjs): main-thread CPU ours / vad-web ≤ 0.1 and no long task
 * at each rate, VAD CPU per frame < 10 % of a frame at 4×, segments within ±1 frame of vad-web's.
 *
 *   node bench/voice-pipeline.mjs
 *   node bench/voice-pipeline.mjs --quick   shorter phases (BENCH_QUICK=1 too): checks the wiring
 *   env: BENCH_VOICE_SECONDS (30; quick 10), BENCH_VOICE_IDLE_SECONDS (15; 5), BENCH_VOICE_BOTH_SECONDS (25; 12),
 *        BENCH_VOICE_RATES ("1,4"), BENCH_VOICE_CONTEXT_RATE (unset: the device's rate),
 *        BENCH_VOICE_APP_SECONDS (45; 20), BENCH_VOICE_APP=0 (leave the app out: its figures are then not measured)
 * Prints a table, writes bench/results/voice-pipeline.json (bench/_report.mjs). Exit 1 on a missed
 * goal, 2 when it could not measure: a build, the stand-in or the app's call that failed is that,
 * not a skip.
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';
import { hostBenchmarkIndex, PHONE, phoneSlowdown } from './_host.mjs';
import { audioAnchor, compareSegments, eventLag, sendLatency, soloFigures } from './voice/metrics.mjs';
import { measureApp } from './voice/app.mjs';
import { judge } from './voice/goals.mjs';
import { idlePhase, vadPhase } from './voice/phases.mjs';
import { serveStatic } from './voice/serve.mjs';
import { printTable } from './voice/table.mjs';

const FIXTURE = join(ROOT, 'tests', 'fixtures', 'call-two-questions.wav');
const QUICK = isQuick();
const env = (name, full, quick) => Number(process.env[name] ?? (QUICK ? quick : full));
const SECONDS = env('BENCH_VOICE_SECONDS', 30, 10);
const IDLE_SECONDS = env('BENCH_VOICE_IDLE_SECONDS', 15, 5);
const BOTH_SECONDS = env('BENCH_VOICE_BOTH_SECONDS', 25, 12);
const APP_SECONDS = env('BENCH_VOICE_APP_SECONDS', 45, 20);
const RATES = (process.env.BENCH_VOICE_RATES ?? '1,4').split(',').map(Number);
/** Unset: the device's rate, as in the app. 16000 makes both resamplers pass-through. */
const CONTEXT_RATE = process.env.BENCH_VOICE_CONTEXT_RATE ? Number(process.env.BENCH_VOICE_CONTEXT_RATE) : undefined;
const WITH_APP = process.env.BENCH_VOICE_APP !== '0';

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

/** The app as the stand-in serves it (npm run build:local); throws when it does not build. */
function buildApp() {
  const dir = mkdtempSync(join(tmpdir(), 'voice-bench-app-'));
  try {
    run([VITE, 'build', '--mode', 'standin', '--outDir', dir, '--emptyOutDir', '--logLevel', 'error'], 'vite build --mode standin');
    return dir;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function measureRate(browser, served, { rate, slowdown }, speechHost) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.location().url.endsWith('/favicon.ico')) problems.push(`console: ${msg.text()}`);
  });
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: slowdown });
    await page.goto(served.url);
    await page.waitForFunction(() => window.voiceBench !== undefined);
    const { sampleRate } = await page.evaluate((r) => window.voiceBench.open(r), CONTEXT_RATE);
    console.log(`  rate ${rate}×: idle baseline (${IDLE_SECONDS} s)…`);
    const idle = await idlePhase(browser, page, IDLE_SECONDS);
    const solo = {};
    for (const name of ['ours', 'vadweb']) {
      console.log(`  rate ${rate}×: ${name} alone (start-up + ${SECONDS} s)…`);
      const phase = await vadPhase(browser, page, [name], SECONDS);
      const [runRecord] = phase.runs;
      solo[name] = soloFigures({ name, trace: phase.trace, run: runRecord, pageLongTasks: phase.pageLongTasks(name), baseline: idle.baseline, rate: slowdown });
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
      slowdown,
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

/** The real app's end of speech → send at `rate`; a failed call is a figure the run could not measure. */
async function appFigures(browser, report, origin, { rate, slowdown }) {
  console.log(`  rate ${rate}×: the app, a hands-free call (${APP_SECONDS} s)…`);
  try {
    return await measureApp(browser, { origin, rate: slowdown, seconds: APP_SECONDS, root: new URL('..', import.meta.url) });
  } catch (err) {
    const reason = err.message.split('\n')[0];
    report.error(`${rate}×: the app's call failed: ${reason}`);
    return { error: `the call failed: ${reason}` };
  }
}

await runBench('voice-pipeline', { what: 'our worklet → worker VAD vs @ricky0123/vad-web 0.0.31 MicVAD on the same fake-microphone audio', chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = {
    fixture: 'tests/fixtures/call-two-questions.wav (looped)',
    rates: RATES,
    seconds: SECONDS,
    idleSeconds: IDLE_SECONDS,
    bothSeconds: BOTH_SECONDS,
    appSeconds: WITH_APP ? APP_SECONDS : null,
    contextRate: CONTEXT_RATE ?? 'device',
  };
  const rates = [];
  report.figures = { rates };
  run([join(ROOT, 'scripts', 'make-fixtures.mjs')], 'make-fixtures');
  const dir = build();
  let appDir = null;
  if (WITH_APP) {
    try {
      appDir = buildApp();
    } catch (err) {
      report.error(`the app did not build, so its end of speech → send was not measured: ${err.message}`);
    }
  } else {
    report.note('Run with BENCH_VOICE_APP=0: the app\'s end of speech → send was not measured.');
  }
  const cleanup = [() => rmSync(dir, { recursive: true, force: true }), () => appDir && rmSync(appDir, { recursive: true, force: true })];
  try {
    const served = await serveStatic(dir, '/25d/');
    cleanup.unshift(() => served.close());
    // The stand-in reports healthy only with an app build to serve: the app, else the bench page.
    const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: appDir ?? dir } }).catch((err) => {
      report.error(`the stand-in did not start, so end of speech → send was not measured: ${err.message}`);
      return null;
    });
    if (standin) cleanup.unshift(() => standin.stop());
    // The bench page reaches the speech service through its own origin: the stand-in refuses another's.
    if (standin) served.proxyUpgradesTo(standin.url);
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, `--use-file-for-fake-audio-capture=${FIXTURE}`] });
    cleanup.unshift(() => browser.close());
    // "4×" is the phone Lighthouse's 4× makes of a high-end desktop, on any host (bench/_host.mjs).
    const host = await hostBenchmarkIndex(browser);
    report.settings.hostBenchmarkIndex = host.index;
    console.log(`host benchmarkIndex ${host.index} (readings ${host.readings.join(', ')}); Lighthouse's ${PHONE.slowdown}× is for ${PHONE.hostIndex}`);
    for (const rate of RATES) {
      const slowdown = phoneSlowdown(rate, host.index);
      console.log(`voice pipeline vs vad-web at ${rate}× (this host slowed ${slowdown}×)`);
      const result = await measureRate(browser, served, { rate, slowdown }, standin ? new URL(served.url).origin.replace(/^http/, 'ws') : undefined);
      if (!WITH_APP) result.app = null;
      else if (appDir && standin) result.app = await appFigures(browser, report, standin.url, { rate, slowdown });
      else result.app = { error: appDir ? 'no stand-in' : 'the app did not build' };
      rates.push(result);
    }
  } catch (err) {
    // The rates measured before the failure are still judged and written, beside the reason.
    console.error(err.stack);
    report.error(err.message.split('\n')[0]);
  } finally {
    for (const step of cleanup) await Promise.resolve().then(step).catch((err) => console.error(`cleanup: ${err.message}`));
  }
  judge(report, rates);
  printTable(rates);
});
