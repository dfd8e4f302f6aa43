/**
 * Reads what the voice bench needs out of a Chromium JSON trace (categories 'toplevel',
 * 'blink.user_timing'): the page's performance marks, and the top-level tasks of the
 * page's main thread and of its dedicated workers, each with wall time (dur) and thread
 * CPU time (tdur).
 *
 * Why thread CPU time: this machine is shared (2 cores, often a load of 10+), so a task's
 * wall time mostly measures how long the OS kept the thread waiting. CPU time is the
 * work itself. DevTools' CPU throttling on Linux busy-waits inside the throttled thread,
 * so a throttled main thread's CPU time grows with the rate, as a slower CPU's would.
 */

/** Categories to record; nothing else is read. */
export const TRACE_CATEGORIES = ['toplevel', 'blink.user_timing', '__metadata'];

/**
 * @typedef {{ ts: number, dur: number, tdur: number }} Task  times in µs (trace clock)
 * @typedef {{ marks: Map<string, number>, main: Task[], workers: Task[][] }} PageTrace
 */

/** Outermost X slices only: a nested slice's time is already inside its parent's. */
function outermost(events) {
  const sorted = events.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const tasks = [];
  let end = -Infinity;
  for (const e of sorted) {
    if (e.ts < end) continue;
    tasks.push({ ts: e.ts, dur: e.dur ?? 0, tdur: e.tdur ?? e.dur ?? 0 });
    end = e.ts + (e.dur ?? 0);
  }
  return tasks;
}

/** @returns {PageTrace} */
export function parseTrace(buffer) {
  const json = JSON.parse(buffer.toString('utf8'));
  const events = Array.isArray(json) ? json : json.traceEvents;
  const marks = new Map();
  let page = null;
  for (const e of events) {
    if (e.ph !== 'R' && e.ph !== 'I' && e.ph !== 'i') continue;
    if (!String(e.cat).includes('blink.user_timing')) continue;
    marks.set(e.name, e.ts);
    page ??= { pid: e.pid, tid: e.tid };
  }
  if (!page) throw new Error('the trace has no performance marks from the page');
  const workerTids = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === page.pid && /DedicatedWorker/.test(e.args?.name ?? ''))
      .map((e) => e.tid),
  );
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || e.pid !== page.pid || !String(e.cat).includes('toplevel')) continue;
    if (e.tid !== page.tid && !workerTids.has(e.tid)) continue;
    if (!byThread.has(e.tid)) byThread.set(e.tid, []);
    byThread.get(e.tid).push(e);
  }
  const main = outermost(byThread.get(page.tid) ?? []);
  const workers = [...workerTids].map((tid) => outermost(byThread.get(tid) ?? []));
  return { marks, main, workers };
}

export function mark(trace, name) {
  const ts = trace.marks.get(name);
  if (ts === undefined) throw new Error(`mark "${name}" is not in the trace`);
  return ts;
}

/** Tasks inside [from, to] (µs); one straddling a bound counts pro rata. */
function clipped(tasks, from, to) {
  return tasks.flatMap((t) => {
    const start = Math.max(t.ts, from);
    const end = Math.min(t.ts + t.dur, to);
    if (end <= start && !(t.dur === 0 && t.ts >= from && t.ts <= to)) return [];
    const share = t.dur > 0 ? (end - start) / t.dur : 1;
    return [{ ts: start, dur: end - start, tdur: t.tdur * share, whole: t }];
  });
}

/** Busy time in [from, to], in ms: CPU (sum of tdur) and wall (sum of dur). */
export function busy(tasks, from, to) {
  const inside = clipped(tasks, from, to);
  return {
    cpuMs: inside.reduce((n, t) => n + t.tdur, 0) / 1000,
    wallMs: inside.reduce((n, t) => n + t.dur, 0) / 1000,
  };
}

/** Tasks that started in [from, to] and ran over `ms`, by wall time and by CPU time. */
export function longTasks(tasks, from, to, ms = 50) {
  const started = tasks.filter((t) => t.ts >= from && t.ts <= to);
  return {
    wall: started.filter((t) => t.dur / 1000 > ms).length,
    cpu: started.filter((t) => t.tdur / 1000 > ms).length,
    longestCpuMs: started.reduce((m, t) => Math.max(m, t.tdur / 1000), 0),
  };
}

/**
 * The per-frame tasks of the thread that runs the model: in a window of `frames` frames
 * that thread runs one task per frame holding the inference, and otherwise only small
 * bookkeeping tasks, so the `frames` heaviest tasks (by CPU) are the frames.
 * Returns their CPU and wall times in ms.
 */
export function frameTasks(tasks, from, to, frames) {
  const heaviest = tasks
    .filter((t) => t.ts >= from && t.ts + t.dur <= to)
    .sort((a, b) => b.tdur - a.tdur)
    .slice(0, frames);
  return { cpuMs: heaviest.map((t) => t.tdur / 1000), wallMs: heaviest.map((t) => t.dur / 1000) };
}

/** The worker thread that did the most work in the window (ours starts one per run). */
export function busiestWorker(trace, from, to) {
  let best = [];
  let bestCpu = -1;
  for (const tasks of trace.workers) {
    const { cpuMs } = busy(tasks, from, to);
    if (cpuMs > bestCpu) [best, bestCpu] = [tasks, cpuMs];
  }
  return best;
}
