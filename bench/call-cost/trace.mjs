/**
 * What the renderer's main thread does in a call, from a Chromium trace: the app's call or the
 * floor's, one after the other in the same run. Not a benchmark with goals (bench/call-cost.mjs
 * is); a tool for finding where the main thread's time above the floor goes, and what a long
 * task was.
 *
 * For each client it prints, per minute of the traced window:
 * - the main thread's tasks and their time, by what started them (mojo messages such as the
 *   microphone's PCM and the sockets, timers, main frames, the garbage collector…);
 * - the other tasks, by the script (source file, through the build's source maps) that ran
 *   most in each;
 * - main frames (a style, layout, paint and commit of the page), how many and their time, and
 *   what ran in the task before each: what made the page change;
 * - the main frames' phases (style, layout, pre-paint, paint, layerize, commit…) a minute, and
 *   the slowest frames phase by phase, with the script in them;
 * - every task over 50 ms, with the scripts that ran in it (by source file, through the build's
 *   source maps), or "no script" when it was the renderer's own work;
 * - how many main frames took over 20 ms of thread time, and the ten slowest frames' mean:
 *   the tail a long task comes from, steadier from one trace to the next than the count of
 *   tasks over 50 ms.
 *
 * Besides app and floor, it takes the variants of styles.mjs (the app with a style laid
 * over its call), e.g. `app unpinned app unpinned` at 4× for a cut undone, alternating.
 *
 *   node bench/call-cost/trace.mjs app floor   (after node bench/call-cost.mjs, whose builds it uses)
 *   env: BENCH_TRACE_S (20): the traced window; BENCH_TRACE_RATE (1): CPU throttling (4 to look
 *        for long tasks); BENCH_TRACE_WARMUP_S (10)
 */
import { join } from 'node:path';
import { sourceLocator } from '../_cpu-profile.mjs';
import { BUILD_DIR, runCall } from './session.mjs';
import { clientOf, prepareVariant, VARIANTS } from './styles.mjs';
import { withBenchCalls } from './tools.mjs';

const names = process.argv.slice(2);
if (names.length === 0 || names.some((name) => !(name in VARIANTS))) {
  console.error(`usage: node bench/call-cost/trace.mjs CLIENT… (app, floor, or a variant of styles.mjs: ${Object.keys(VARIANTS).join(', ')})`);
  process.exit(2);
}
/** A main frame this slow (thread time, ms) is counted: the tail the long tasks come from. */
const SLOW_FRAME_MS = 20;
const TRACE_S = Number(process.env.BENCH_TRACE_S ?? 20);
const RATE = Number(process.env.BENCH_TRACE_RATE ?? 1);
const LONG_TASK_MS = 50;
const CATEGORIES = ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', 'cc'];
/** Trace events that run script, and where. */
const SCRIPT_EVENTS = new Set(['FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'EvaluateScript']);

/**
 * A main frame's phases: where a frame's time goes. Summed as they come, so a style or layout
 * that script forced inside the frame counts too, and a frame's phases with its script can add
 * up to more than its time.
 */
const FRAME_PHASES = new Set(['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'UpdateLayer', 'Commit', 'IntersectionObserverController::computeIntersections', 'HitTest', 'ScrollLayer']);

const locators = [
  ['/call-cost-floor/', sourceLocator(join(BUILD_DIR, 'call-cost-floor', 'assets'))],
  ['/25d/assets/', sourceLocator(join(BUILD_DIR, 'assets'))],
];
/** A script event's source file (through the source maps), or its event type. */
function scriptOf(event) {
  const data = event.args?.data ?? {};
  if (data.url) {
    const found = locators.find(([part]) => data.url.includes(part));
    const frame = { url: data.url, lineNumber: (data.lineNumber ?? 1) - 1, columnNumber: (data.columnNumber ?? 1) - 1 };
    return (found && found[1](frame)) ?? data.url.split('/').pop();
  }
  return data.type ? `${event.name} ${data.type}` : event.name;
}

/**
 * An event's CPU time (its thread time, `tdur`), in ms. Not its wall time: on a machine whose
 * cores the call's other threads share, a task's wall time grows with whatever else runs at
 * that moment (the voice detector's worker runs on the same microphone chunks as the main
 * thread's handler), so wall time charges the main thread with its neighbours' work.
 */
const cpuMs = (e) => (e.tdur ?? e.dur) / 1000;

/** The renderer main thread's complete events, in order, nested by time. */
function mainThreadTasks(traceEvents) {
  const names = new Map();
  for (const e of traceEvents) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  const counts = new Map();
  for (const e of traceEvents) {
    const key = `${e.pid}:${e.tid}`;
    if (names.get(key) === 'CrRendererMain' && e.ph === 'X') counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const events = traceEvents.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === main && typeof e.dur === 'number').sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // Tasks: the outermost ThreadControllerImpl::RunTask; each with what ran inside it.
  const tasks = [];
  let current = null;
  for (const e of events) {
    if (current && e.ts >= current.end) current = null;
    if (!current && e.name === 'ThreadControllerImpl::RunTask') {
      current = { ts: e.ts, end: e.ts + e.dur, wallMs: e.dur / 1000, ms: cpuMs(e), threadTime: e.tdur !== undefined, source: e.args?.src_func ?? '?', frame: false, scripts: new Map(), phases: new Map() };
      tasks.push(current);
      continue;
    }
    if (!current) continue;
    if (e.name === 'ProxyMain::BeginMainFrame') current.frame = true;
    if (FRAME_PHASES.has(e.name)) current.phases.set(e.name, (current.phases.get(e.name) ?? 0) + cpuMs(e));
    if (SCRIPT_EVENTS.has(e.name)) {
      const script = scriptOf(e);
      current.scripts.set(script, (current.scripts.get(script) ?? 0) + cpuMs(e));
    }
  }
  return tasks;
}

const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
const fmt = (ms) => ms.toFixed(0).padStart(6);

function report(name, tasks) {
  if (tasks.length === 0) return console.log(`${name}: no main-thread tasks in the trace`);
  const minutes = (tasks.at(-1).end - tasks[0].ts) / 60e6;
  const perMin = (ms) => ms / minutes;
  const bySource = new Map();
  for (const t of tasks) {
    const kind = t.frame ? 'main frame' : t.source;
    const entry = bySource.get(kind) ?? { ms: 0, n: 0 };
    entry.ms += t.ms;
    entry.n += 1;
    bySource.set(kind, entry);
  }
  const total = tasks.reduce((s, t) => s + t.ms, 0);
  // Without thread times (a trace that did not record them) every figure is wall time.
  const measure = tasks.some((t) => t.threadTime) ? 'of CPU' : 'of WALL time (the trace has no thread times)';
  console.log(`\n${name} at ${RATE}×: ${(minutes * 60).toFixed(0)} s traced; main-thread tasks ${fmt(perMin(total))} ms/min ${measure} (tracing included)`);
  for (const [kind, { ms, n }] of [...bySource].sort((a, b) => b[1].ms - a[1].ms).slice(0, 10)) {
    console.log(`  ${fmt(perMin(ms))} ms/min  ${String(Math.round(n / minutes)).padStart(5)}/min  ${kind}`);
  }
  // The other tasks, by the script that took most of each (or none: the renderer's own work).
  const byScript = new Map();
  for (const t of tasks) {
    if (t.frame) continue;
    const script = t.scripts.size > 0 ? top(t.scripts, 1)[0][0] : '(no script)';
    const entry = byScript.get(script) ?? { ms: 0, n: 0 };
    entry.ms += t.ms;
    entry.n += 1;
    byScript.set(script, entry);
  }
  console.log('  the other tasks, by the script that ran most in each:');
  for (const [script, { ms, n }] of [...byScript].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) {
    console.log(`    ${fmt(perMin(ms))} ms/min  ${String(Math.round(n / minutes)).padStart(5)}/min  ${script}`);
  }
  // What came before each main frame: the last task that ran script.
  const causes = new Map();
  let lastScript = '(nothing)';
  for (const t of tasks) {
    if (t.frame) {
      const entry = causes.get(lastScript) ?? { ms: 0, n: 0 };
      entry.ms += t.ms;
      entry.n += 1;
      causes.set(lastScript, entry);
      lastScript = '(a frame: an animation or transition going on)';
    } else if (t.scripts.size > 0) {
      lastScript = top(t.scripts, 1)[0][0];
    }
  }
  console.log('  main frames, by the script that ran before them:');
  for (const [cause, { ms, n }] of [...causes].sort((a, b) => b[1].ms - a[1].ms).slice(0, 10)) {
    console.log(`    ${fmt(perMin(ms))} ms/min  ${String(Math.round(n / minutes)).padStart(5)}/min  ${cause}`);
  }
  // The slowest main frames, phase by phase (and the script in them).
  const frames = tasks.filter((t) => t.frame);
  const phaseTotals = new Map();
  for (const t of frames) for (const [phase, ms] of t.phases) phaseTotals.set(phase, (phaseTotals.get(phase) ?? 0) + ms);
  console.log(`  main frames' phases: ${top(phaseTotals, 8).map(([p, ms]) => `${p} ${perMin(ms).toFixed(0)}`).join(', ')} (ms/min)`);
  console.log('  the slowest main frames:');
  const bySlowness = [...frames].sort((a, b) => b.ms - a.ms);
  for (const t of bySlowness.slice(0, 6)) {
    const phases = top(t.phases, 5).map(([p, ms]) => `${p} ${ms.toFixed(1)}`).join(', ');
    const scripts = top(t.scripts, 2).map(([s, ms]) => `${s} ${ms.toFixed(1)}`).join(', ');
    console.log(`    at ${((t.ts - tasks[0].ts) / 1e6).toFixed(1)} s, CPU ${t.ms.toFixed(1)} ms (wall ${t.wallMs.toFixed(0)}): ${phases}${scripts ? `; script: ${scripts}` : ''}`);
  }
  const slowest = bySlowness.slice(0, 10);
  const slow = frames.filter((t) => t.ms > SLOW_FRAME_MS).length;
  console.log(`  main frames over ${SLOW_FRAME_MS} ms: ${slow} (${(slow / minutes).toFixed(1)} a minute); the ten slowest: mean ${(slowest.reduce((s, t) => s + t.ms, 0) / Math.max(1, slowest.length)).toFixed(1)} ms`);
  const long = tasks.filter((t) => t.wallMs > LONG_TASK_MS);
  console.log(`  tasks over ${LONG_TASK_MS} ms: ${long.length}`);
  for (const t of long) {
    const scripts = top(t.scripts, 3).map(([s, ms]) => `${s} ${ms.toFixed(0)} ms`);
    console.log(`    at ${((t.ts - tasks[0].ts) / 1e6).toFixed(1)} s, ${t.wallMs.toFixed(0)} ms (CPU ${t.ms.toFixed(0)})${t.frame ? ' (a main frame)' : ''}: ${scripts.length ? scripts.join(', ') : 'no script'}`);
  }
}

await withBenchCalls(async (call) => {
  for (const name of names) {
    await runCall({
      ...call,
      warmupS: Number(process.env.BENCH_TRACE_WARMUP_S ?? 10),
      client: clientOf(name),
      prepare: prepareVariant(name),
      rate: RATE,
      windows: [1],
      profileS: 0,
      afterWindows: async (page, browser) => {
        await browser.startTracing(page, { categories: CATEGORIES });
        await new Promise((resolve) => setTimeout(resolve, TRACE_S * 1000));
        const trace = JSON.parse((await browser.stopTracing()).toString('utf8'));
        report(name, mainThreadTasks(Array.isArray(trace) ? trace : trace.traceEvents));
      },
    });
  }
});
