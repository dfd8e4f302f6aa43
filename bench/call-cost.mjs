/**
 * A whole hands-free call on a low-end phone, against the least such a call can cost.
 *
 * The app's call and the floor's (bench/call-cost/floor: a bare page that does only what a
 * call must, never part of the product build) alternate in one run on the same machine,
 * against the same stand-in, each in a browser of its own with the same test microphone: a
 * looped WAV asking one of the demo's four questions every 20 s (bench/call-cost/mic.mjs).
 * At each CPU throttling rate (1× and 4×, DevTools' throttling of the page's main thread;
 * "4×" is Lighthouse's phone on any host, 4 × this host's benchmarkIndex / 1750, bench/_host.mjs),
 * the sessions run app, floor, floor, app (so a load that rises or falls during the run
 * reaches both alike), each measured for a window of HALF_S after going live, hearing the
 * greeting, starting the call and a warm-up: 5 minutes of call per client and rate. Read in
 * each window:
 *   - CPU seconds per minute over every process of the browser (/proc: the browser, its
 *     renderer, GPU process, network, audio and storage services…), by process and thread;
 *   - the renderer's main thread alone (CDP Performance.getMetrics: its CPU time);
 *   - the page's JS heap after a forced GC, its DOM nodes and listeners, and the renderer's
 *     resident memory (/proc);
 *   - long tasks (the Long Tasks API), the avatar's video frames presented and dropped;
 *   - the questions spoken, sent and answered (the page's signaling frames).
 * After its last window at 1×, each client's main thread is profiled for a minute (V8's
 * sampling profiler, read through the builds' source maps): the profile of the app's
 * minute, beside the floor's.
 * Then the app alone for a 30-minute call (LONG_MIN), read minute by minute: the CPU and
 * memory of the last 5 minutes against the first 5, DOM nodes and listeners.
 *
 * Goals (named thresholds, GOALS below): the app within 1.15× the floor's CPU and 1.5× its
 * main-thread time, its JS heap within +30 MB of the floor's, no long task over 50 ms during
 * the call at 4×, every question answered; over the 30 minutes, CPU and heap of the last 5
 * minutes within 1.15× and +5 MB of the first 5, and DOM nodes and listeners flat.
 *
 *   node bench/call-cost.mjs              (BENCH_SKIP_BUILD=1 reuses the last build)
 *   node bench/call-cost.mjs --quick      30 s windows, app then floor, a 3-minute long call:
 *                                         checks the wiring (BENCH_QUICK=1 too)
 *   env: BENCH_CALL_RATES ("1,4"), BENCH_CALL_HALF_S (150), BENCH_CALL_LONG_MIN (30; 0 leaves
 *        the long call out, and its goals are then not measured), BENCH_CALL_DPR (2),
 *        BENCH_SAVE_PROFILE=prefix (writes prefix-app.cpuprofile and prefix-floor.cpuprofile)
 * Writes bench/results/call-cost.json (bench/_report.mjs); exit 1 on a missed goal, 2 when it
 * could not measure (a build, the stand-in, a call that failed, a figure that came out missing).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { chromium } from '@playwright/test';
import { hostBenchmarkIndex, phoneSlowdown } from './_host.mjs';
import { buildApp, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';
import { makeMicrophone, questionsAnswered, spokenBetween } from './call-cost/mic.mjs';
import { summarizeProfile } from './call-cost/profile.mjs';
import { BUILD_DIR as OUT_DIR, MIC_FILE, PHONE_VIEWPORT, runCall } from './call-cost/session.mjs';
import { judge } from './call-cost/goals.mjs';

const { startAudioOutput } = await tsImport('../tests/support/audioOutput.ts', import.meta.url);

const QUICK = isQuick();
const num = (name, full, quick) => Number(process.env[name] ?? (QUICK ? quick : full));
const RATES = (process.env.BENCH_CALL_RATES ?? '1,4').split(',').map(Number);
const HALF_S = num('BENCH_CALL_HALF_S', 150, 30);
const LONG_MIN = num('BENCH_CALL_LONG_MIN', 30, 3);
/** The long call's windows: a minute each (40 s in a quick run). */
const LONG_WINDOW_S = QUICK ? 40 : 60;
const DPR = num('BENCH_CALL_DPR', PHONE_VIEWPORT.dpr, PHONE_VIEWPORT.dpr);
const PROFILE_S = QUICK ? 20 : 60;
/** After the call starts: the first question asked and answered, the voice detector warm. */
const WARMUP_S = QUICK ? 10 : 25;
const VIEWPORT = { ...PHONE_VIEWPORT, dpr: DPR };
const ORDER = QUICK ? ['app', 'floor'] : ['app', 'floor', 'floor', 'app'];

const FLOOR_DIR = join(OUT_DIR, 'call-cost-floor');

function buildFloor() {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'bench/call-cost/vite.config.ts', '--outDir', FLOOR_DIR], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`vite build of the floor failed with code ${result.status}`);
}

const load = () => Number(loadavg()[0].toFixed(2));
const round = (v, d = 2) => (v === null || v === undefined || !Number.isFinite(v) ? null : Number(v.toFixed(d)));

/** Sessions that failed and were run again (a loaded machine can miss a page load or a start): said in the notes. */
const retried = [];

/** Runs a session; one that fails is run once more, and a second failure is a run that could not measure. */
async function attempt(what, run) {
  try {
    return await run();
  } catch (error) {
    const reason = error.message.split('\n')[0];
    console.log(`  ${what} failed (${reason}); running it again`);
    retried.push(`${what}: ${reason}`);
    return run();
  }
}

/** The questions of a call's windows: spoken in them, and what became of each. */
function callQuestions(call, mic) {
  const openedAt = call.probe.micOpenedAt.at(-1);
  if (openedAt === undefined) throw new Error(`${call.client}: the microphone never opened`);
  const spoken = call.windows.flatMap((w) => spokenBetween(mic, openedAt, w.from, w.to));
  return questionsAnswered(spoken, call.probe);
}

/** The long tasks of a call's windows (the Long Tasks API's, on the page's performance clock). */
function callLongTasks(call) {
  if (!call.probe.longTasks) return null;
  return call.probe.longTasks.filter((t) => call.windows.some((w) => t.start >= w.perfFrom && t.start < w.perfTo));
}

function printWindow(label, w) {
  const kinds = Object.entries(w.byKindSPerMin)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ');
  console.log(
    `  ${label}: ${w.cpuSPerMin.toFixed(1)} CPU s/min (${kinds}); main thread ${w.mainSPerMin.toFixed(2)} s/min; video ${w.video.presented} presented, ${w.video.dropped} dropped` +
      (w.heapMb !== undefined ? `; heap ${w.heapMb.toFixed(1)} MB, ${w.nodes} nodes, ${w.listeners} listeners, ${w.chatMessages} messages` : '') +
      `; load ${load()}`,
  );
  const threads = Object.entries(w.byThreadSPerMin)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');
  console.log(`    threads (s/min): ${threads}`);
}

await runBench('call-cost', { what: 'a whole hands-free call, the app against the floor (the least a call can cost), at 1× and 4× CPU', chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { rates: RATES, halfWindowS: HALF_S, order: ORDER, warmupS: WARMUP_S, viewport: VIEWPORT, profileS: PROFILE_S, longCallMin: LONG_MIN };
  buildApp(OUT_DIR);
  buildFloor();
  const mic = makeMicrophone(join(ROOT, 'tests', 'fixtures'), MIC_FILE);
  report.settings.microphone = { loopS: mic.loopS, questions: mic.schedule.map((q) => q.text) };
  const output = await startAudioOutput();
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  // Stopped by a signal, a run would otherwise leave the stand-in and the audio daemon running.
  const stopOnSignal = (signal) => {
    void Promise.allSettled([standin.stop(), output.stop()]).then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  // "4×" is the phone Lighthouse's 4× makes of a high-end desktop, on any host (bench/_host.mjs).
  const probe = await chromium.launch({ executablePath: CHROMIUM_PATH });
  const host = await hostBenchmarkIndex(probe).finally(() => probe.close());
  const throttles = Object.fromEntries(RATES.map((rate) => [rate, phoneSlowdown(rate, host.index)]));
  report.settings.hostBenchmarkIndex = host.index;
  report.settings.throttles = throttles;
  for (const rate of RATES.filter((r) => throttles[r] !== r)) report.note(`${rate}× is Lighthouse's ${rate}× phone: this host (benchmarkIndex ${host.index}) slowed ${throttles[rate]}× (bench/_host.mjs).`);
  console.log(`call-cost: host benchmarkIndex ${host.index}; throttling ${RATES.map((r) => `${r}× → ${throttles[r]}×`).join(', ')}`);
  const calls = [];
  let long = null;
  const common = { base: standin.url, micFile: MIC_FILE, pulseServer: output.server, viewport: VIEWPORT, warmupS: WARMUP_S };
  try {
    for (const rate of RATES) {
      for (const [i, client] of ORDER.entries()) {
        const last = ORDER.lastIndexOf(client) === i;
        const profileS = rate === 1 && last ? PROFILE_S : 0;
        console.log(`call-cost: ${client} at ${rate}×, ${HALF_S} s measured${profileS ? `, then a ${profileS} s profile` : ''} (load ${load()})`);
        const call = await attempt(`${client} at ${rate}×`, () => runCall({ ...common, client, rate, throttle: throttles[rate], windows: [HALF_S], profileS, onWindow: (w) => printWindow(`${client} ${rate}×`, w) }));
        for (const problem of call.problems) console.log(`  ! ${problem}`);
        calls.push(call);
      }
    }
    if (LONG_MIN > 0) {
      console.log(`call-cost: the app's long call, ${LONG_MIN} windows of ${LONG_WINDOW_S} s (load ${load()})`);
      long = await attempt('the long call', () => runCall({
        ...common,
        client: 'app',
        rate: 1,
        windows: Array(LONG_MIN).fill(LONG_WINDOW_S),
        heapEach: true,
        profileS: 0,
        onWindow: (w, i) => printWindow(`minute ${i + 1}`, w),
      }));
    }
  } finally {
    await standin.stop();
    await output.stop();
  }

  const locators = [
    ['/25d/call-cost-floor/', join(FLOOR_DIR, 'assets')],
    ['/25d/assets/', join(OUT_DIR, 'assets')],
  ];
  for (const call of calls) {
    call.questions = callQuestions(call, mic);
    call.longTasks = callLongTasks(call);
    if (call.profile) {
      if (process.env.BENCH_SAVE_PROFILE) writeFileSync(`${process.env.BENCH_SAVE_PROFILE}-${call.client}.cpuprofile`, JSON.stringify(call.profile));
      call.profileSummary = summarizeProfile(call.profile, locators);
      delete call.profile;
    }
  }
  if (long) {
    long.questions = callQuestions(long, mic);
    long.longTasks = callLongTasks(long);
  }
  for (const what of retried) report.note(`A session failed and was run again: ${what}.`);
  judge(report, { calls, long, rates: RATES, round });
});
