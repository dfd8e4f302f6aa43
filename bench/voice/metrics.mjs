/**
 * Turns what one throttle rate's phases recorded into the figures of the voice bench:
 * pure functions over plain data, so the driver stays a sequence of steps.
 */
import { busiestWorker, busy, frameTasks, longTasks, mark } from './trace.mjs';

export const FRAME_MS = 96;

/** Nearest-rank percentile of ms values; null for none. */
export function percentile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const round = (v, digits = 2) => (v === null || v === undefined ? null : Number(v.toFixed(digits)));
const perMinute = (ms, windowUs) => (ms * 60_000_000) / windowUs;

/** Main-thread busy time per minute in a phase's window (idle: the whole phase). */
export function mainThreadPerMinute(trace, from, to) {
  const { cpuMs, wallMs } = busy(trace.main, from, to);
  return { cpu: perMinute(cpuMs, to - from), wall: perMinute(wallMs, to - from) };
}

/**
 * One VAD's solo phase: start-up (start → ready) and the steady window (tap open → end),
 * with the idle baseline (ms per minute) subtracted from the steady main-thread time.
 */
export function soloFigures({ name, trace, run, pageLongTasks, baseline, rate }) {
  const start = mark(trace, `start:${name}`);
  const ready = mark(trace, `ready:${name}`);
  const open = mark(trace, 'open');
  const end = mark(trace, 'end');
  const main = mainThreadPerMinute(trace, open, end);
  const steadyTasks = trace.main.filter((t) => t.ts >= open && t.ts <= end);
  const frames = Math.floor((end - open) / 1000 / FRAME_MS);
  // Ours infers in its worker, vad-web on the main thread.
  const inferThread = name === 'ours' ? busiestWorker(trace, open, end) : trace.main;
  const perFrame = frameTasks(inferThread, open, end, frames);
  const startup = busy(trace.main, start, ready);
  const p50 = percentile(perFrame.cpuMs, 0.5);
  const p95 = percentile(perFrame.cpuMs, 0.95);
  // CDP throttles only the page's main thread (one thread per renderer); a worker cannot
  // be throttled, so ours' figure at rate r is r × its measured CPU time.
  const scale = name === 'ours' ? rate : 1;
  return {
    steadySeconds: round((end - open) / 1e6, 1),
    mainMsPerMin: {
      cpu: round(Math.max(0, main.cpu - baseline.cpu), 1),
      wall: round(Math.max(0, main.wall - baseline.wall), 1),
      rawCpu: round(main.cpu, 1),
      /** What the main thread ran: top-level tasks per second and their median CPU time. */
      tasksPerSecond: round(steadyTasks.length / ((end - open) / 1e6), 1),
      taskCpuMedianMs: round(percentile(steadyTasks.map((t) => t.tdur / 1000), 0.5), 3),
    },
    longTasks: {
      steady: longTasks(trace.main, open, end),
      startup: longTasks(trace.main, start, ready),
      observer: { steady: pageLongTasks.steady.length, startup: pageLongTasks.startup.length },
    },
    startup: { wallMs: round((ready - start) / 1000, 0), mainCpuMs: round(startup.cpuMs, 0) },
    perFrame: {
      thread: name === 'ours' ? 'worker' : 'main',
      frames: perFrame.cpuMs.length,
      cpuMedianMs: round(p50),
      cpuP95Ms: round(p95),
      wallMedianMs: round(percentile(perFrame.wallMs, 0.5)),
      wallP95Ms: round(percentile(perFrame.wallMs, 0.95)),
      /** CPU time at this rate's speed: measured for the main thread, scaled for the worker. */
      atRateMedianMs: round(p50 === null ? null : p50 * scale),
      atRateP95Ms: round(p95 === null ? null : p95 * scale),
      atRateP95PctOfFrame: round(p95 === null ? null : ((p95 * scale) / FRAME_MS) * 100, 1),
      scaledFromUnthrottled: scale !== 1,
      inCode: inCodeTimes(run),
    },
    errors: run.errors,
  };
}

/** The timers inside the code: ours reports per-second median/p95, vad-web is timed per frame. */
function inCodeTimes(run) {
  if (run.name === 'vadweb') {
    return { wallMedianMs: round(percentile(run.inferMs, 0.5)), wallP95Ms: round(percentile(run.inferMs, 0.95)) };
  }
  const medians = run.stats.map((s) => s.inferMsMedian);
  const p95s = run.stats.map((s) => s.inferMsP95);
  return {
    wallMedianMs: round(percentile(medians, 0.5)),
    wallP95Ms: round(percentile(p95s, 0.5)),
    note: 'median of the worker’s per-second medians / p95s',
    dropped: run.stats.at(-1)?.dropped ?? 0,
  };
}

/**
 * Pairs the two VADs' segments by overlap, in order. A segment still open at stop has
 * no end; it is compared on its start only. Both are stopped at the same moment, but one
 * may be behind the other then (ours reports its frame count once a second): segments
 * that start at or after the fewer of the two frame counts are left out as the tail.
 */
export function compareSegments(ours, theirs) {
  const horizon = Math.min(ours.frames || Infinity, theirs.frames || Infinity);
  const a = ours.segments.filter((s) => s.startFrame < horizon);
  const b = theirs.segments.filter((s) => s.startFrame < horizon);
  const pairs = [];
  let j = 0;
  const unmatched = { ours: [], vadweb: [] };
  const endOf = (s) => s.endFrame ?? Infinity;
  for (const s of a) {
    while (j < b.length && endOf(b[j]) < s.startFrame - 1) unmatched.vadweb.push(b[j++]);
    const t = b[j];
    if (t && t.startFrame <= endOf(s) + 1) {
      pairs.push({
        ours: [s.startFrame, s.endFrame],
        vadweb: [t.startFrame, t.endFrame],
        misfire: [s.misfire, t.misfire],
        dStart: s.startFrame - t.startFrame,
        dEnd: s.endFrame === null || t.endFrame === null ? null : s.endFrame - t.endFrame,
      });
      j++;
    } else {
      unmatched.ours.push(s);
    }
  }
  unmatched.vadweb.push(...b.slice(j));
  const deltas = pairs.flatMap((p) => [p.dStart, p.dEnd]).filter((d) => d !== null);
  const maxAbs = deltas.reduce((m, d) => Math.max(m, Math.abs(d)), 0);
  const sameKind = pairs.every((p) => p.misfire[0] === p.misfire[1]);
  return {
    pairs,
    unmatched: { ours: unmatched.ours.length, vadweb: unmatched.vadweb.length },
    tail: ours.segments.length - a.length + theirs.segments.length - b.length,
    maxAbsDeltaFrames: maxAbs,
    withinOneFrame: pairs.length > 0 && maxAbs <= 1 && sameKind && unmatched.ours.length + unmatched.vadweb.length === 0,
  };
}

/**
 * When the audio of frame 0 ended, on the page's clock, as well as the page can tell:
 * vad-web's k-th frame result cannot reach the main thread before (k + 1) × 96 ms of
 * audio, so the earliest of (arrival − (k + 1) × 96 ms) is the audio's start plus the
 * shortest worklet → main hop. Lags measured from it are relative to that hop.
 */
export function audioAnchor(vadweb) {
  const starts = vadweb.frameAt.map((at, k) => at - (k + 1) * FRAME_MS);
  return starts.length ? Math.min(...starts) : null;
}

/** How long after the end of its last frame's audio each speechEnd reached the main thread (ms). */
export function eventLag(run, anchor) {
  if (anchor === null) return { medianMs: null, maxMs: null };
  const lags = run.segments
    .filter((s) => s.endFrame !== null && s.endAt !== null)
    .map((s) => s.endAt - (anchor + (s.endFrame + 1) * FRAME_MS));
  return { medianMs: round(percentile(lags, 0.5), 0), maxMs: round(lags.length ? Math.max(...lags) : null, 0) };
}

/** speechEnd → the app's send (ms) for one VAD's sentences. */
export function sendLatency(timings = []) {
  const ms = timings.map((t) => t.sentAt - t.speechEndAt);
  return {
    sentences: ms.length,
    medianMs: round(percentile(ms, 0.5), 0),
    maxMs: round(ms.length ? Math.max(...ms) : null, 0),
    texts: timings.map((t) => t.text),
  };
}

export function ratio(ours, theirs) {
  if (ours === null || theirs === null || ours === undefined || theirs === undefined) return null;
  if (theirs === 0) return ours === 0 ? 1 : null;
  return round(ours / theirs, 3);
}
