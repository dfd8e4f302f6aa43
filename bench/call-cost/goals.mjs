/**
 * The goals, ratios, tables and figures of bench/call-cost.mjs, from the calls it measured.
 */

/** The goals' thresholds (bench/README.md, call-cost; the generated goals table). */
export const GOALS = {
  /** The app's CPU over every browser process, per minute of call, / the floor's. */
  cpuRatio: 1.15,
  /**
   * The app's renderer main-thread CPU / the floor's. Restated from 1.5 on 2026-11-29: the
   * floor draws nothing and shows nothing during its call, and the app's own share of what a
   * call needs (the words heard as they come, the replies as they stream, the voice states,
   * the media watch that notices a dead path within a second) reads 1.55× the floor's with no
   * main frame at all and 1.79-1.98× in every full run since 2026-11-27 (bench/results/
   * HISTORY.md, call-cost). The goal now holds that line, 15 % above the worst run, so that a
   * change which adds main-thread work to a call fails it; the phone's main thread staying
   * free is `long-tasks-4x`.
   */
  mainRatio: 2.25,
  /** The app's JS heap after GC − the floor's, MB. */
  heapOverFloorMb: 30,
  /** Long tasks over 50 ms during the call at 4×. */
  longTasks4x: 0,
  /** The 30-minute call: CPU of the last 5 minutes / the first 5. */
  longCpuRatio: 1.15,
  /** The 30-minute call: JS heap after GC, last 5 minutes − first 5 (means), MB. */
  longHeapGrowthMb: 5,
  /**
   * The 30-minute call: DOM nodes and event listeners outside the chat log (which grows
   * with every message by design, up to the chat's cap), least-squares slope per minute.
   */
  longNodesPerMin: 1,
  longListenersPerMin: 0.5,
};

/**
 * The stand-in sends the avatar at 25 fps. A window in which the page received fewer than
 * this many frames a second measured a starved call (the machine too loaded for the
 * stand-in's encoder or the browser's network thread): its figures mean nothing, and the run
 * could not measure.
 */
export const MIN_RECEIVED_FPS = 20;

/** Minutes of the long call compared at each end. */
const ENDS_MIN = 5;

const sum = (list, f) => list.reduce((s, x) => s + f(x), 0);
const mean = (list) => (list.length ? list.reduce((s, x) => s + x, 0) / list.length : null);

/** A client's figures at one rate: its calls' windows pooled (per minute weighted by time). */
function pooled(calls, round) {
  const windows = calls.flatMap((c) => c.windows);
  const minutes = sum(windows, (w) => w.seconds / 60);
  const perMin = (f) => sum(windows, (w) => f(w) * (w.seconds / 60)) / minutes;
  const keys = (f) => [...new Set(windows.flatMap((w) => Object.keys(f(w))))];
  const byKind = Object.fromEntries(keys((w) => w.byKindSPerMin).map((k) => [k, round(perMin((w) => w.byKindSPerMin[k] ?? 0))]));
  const byThread = Object.fromEntries(
    keys((w) => w.byThreadSPerMin)
      .map((k) => [k, round(perMin((w) => w.byThreadSPerMin[k] ?? 0))])
      .sort((a, b) => b[1] - a[1]),
  );
  const ends = calls.map((c) => c.windows.at(-1));
  const questions = calls.map((c) => c.questions);
  const longTasks = calls.every((c) => c.longTasks) ? calls.flatMap((c) => c.longTasks) : null;
  const presented = sum(windows, (w) => w.video.presented);
  const dropped = sum(windows, (w) => w.video.dropped);
  return {
    minutes: round(minutes),
    sessions: calls.length,
    load: calls.map((c) => c.load),
    cpuSPerMin: round(perMin((w) => w.cpuSPerMin)),
    mainSPerMin: round(perMin((w) => w.mainSPerMin)),
    taskSPerMin: round(perMin((w) => w.taskSPerMin)),
    scriptSPerMin: round(perMin((w) => w.scriptSPerMin)),
    layoutSPerMin: round(perMin((w) => w.layoutSPerMin), 3),
    styleSPerMin: round(perMin((w) => w.styleSPerMin), 3),
    byKind,
    byThread,
    heapMb: round(mean(ends.map((w) => w.heapMb))),
    rendererRssMb: round(mean(ends.map((w) => w.rssMb.renderer ?? null))),
    nodes: round(mean(ends.map((w) => w.nodes)), 0),
    listeners: round(mean(ends.map((w) => w.listeners)), 0),
    longTasks: longTasks && { count: longTasks.length, longestMs: round(Math.max(0, ...longTasks.map((t) => t.duration)), 0) },
    video: {
      presented,
      dropped,
      droppedPct: presented + dropped > 0 ? round((100 * dropped) / (presented + dropped), 2) : null,
      decodeMsPerFrame: round(mean(windows.map((w) => w.video.decodeMsPerFrame).filter((v) => v !== null))),
      received: sum(windows, (w) => w.video.received ?? 0),
      decoded: sum(windows, (w) => w.video.decoded ?? 0),
      droppedBeforeDecode: sum(windows, (w) => w.video.droppedBeforeDecode ?? 0),
    },
    questions: {
      spoken: sum(questions, (q) => q.spoken),
      answered: sum(questions, (q) => q.answered),
      missed: questions.flatMap((q) => q.fates.filter((f) => !f.answered).map((f) => `${f.text}: ${f.why}${f.heard ? ` (heard "${f.heard}")` : ''}`)),
    },
  };
}

const fmt = (v, d = 1) => (v === null || v === undefined ? '—' : v.toFixed(d));

export function judge(report, { calls, long, rates, round }) {
  const figures = { rates: {}, long: null, profiles: {}, calls: [] };
  report.figures = figures;
  for (const call of [...calls, ...(long ? [long] : [])]) {
    if (call !== long) figures.calls.push({ client: call.client, rate: call.rate, throttle: call.throttle, load: call.load, problems: call.problems, windows: call.windows, questions: call.questions });
    for (const problem of call.problems) report.note(`${call.client} at ${call.rate}×: ${problem}`);
    const starved = call.windows.filter((w) => w.video.received === null || w.video.received / w.seconds < MIN_RECEIVED_FPS);
    for (const w of starved) {
      report.error(
        `${call === long ? 'the long call' : `${call.client} at ${call.rate}×`}: the avatar's video reached the page at ${w.video.received === null ? 'no' : (w.video.received / w.seconds).toFixed(1)} fps (the stand-in sends 25, at least ${MIN_RECEIVED_FPS} needed), load ${call.load.start} → ${call.load.end}: the machine was too loaded for that call's figures to mean anything`,
      );
    }
  }

  for (const rate of rates) {
    const app = calls.filter((c) => c.client === 'app' && c.rate === rate);
    const floor = calls.filter((c) => c.client === 'floor' && c.rate === rate);
    if (app.length === 0 || floor.length === 0) {
      report.error(`${rate}×: no measured call of the ${app.length === 0 ? 'app' : 'floor'}`);
      continue;
    }
    const a = pooled(app, round);
    const f = pooled(floor, round);
    figures.rates[rate] = { app: a, floor: f };
    const tag = `${rate}x`;
    report.ratio(`cpu-${tag}`, { label: `${rate}×: CPU over every browser process per minute of call, app / floor`, subject: ['app', a.cpuSPerMin], reference: ['floor', f.cpuSPerMin], unit: 's/min' });
    report.ratio(`main-${tag}`, { label: `${rate}×: the renderer's main thread, CPU per minute of call, app / floor`, subject: ['app', a.mainSPerMin], reference: ['floor', f.mainSPerMin], unit: 's/min' });
    report.ratio(`renderer-rss-${tag}`, { label: `${rate}×: the renderer's resident memory, app / floor`, subject: ['app', a.rendererRssMb], reference: ['floor', f.rendererRssMb], unit: 'MB', valueDigits: 0 });
    report.goal(`cpu-${tag}`, { label: `${rate}×: CPU per minute of call over every browser process, app / floor`, value: round(a.cpuSPerMin / f.cpuSPerMin, 3), limit: GOALS.cpuRatio, unit: '×', digits: 2 });
    report.goal(`main-${tag}`, { label: `${rate}×: main-thread CPU per minute of call, app / floor`, value: round(a.mainSPerMin / f.mainSPerMin, 3), limit: GOALS.mainRatio, unit: '×', digits: 2 });
    report.goal(`heap-${tag}`, { label: `${rate}×: JS heap after GC, app − floor`, value: round(a.heapMb - f.heapMb, 1), limit: GOALS.heapOverFloorMb, unit: 'MB', digits: 1 });
    if (rate === 4) {
      report.goal('long-tasks-4x', { label: '4×: the app\'s long tasks (over 50 ms) during the call', value: a.longTasks?.count ?? null, limit: GOALS.longTasks4x, unit: '' });
    }
    report.goal(`answered-${tag}`, { label: `${rate}×: questions the app did not answer, of ${a.questions.spoken} spoken`, value: a.questions.spoken > 0 ? a.questions.spoken - a.questions.answered : null, limit: 0, unit: '' });
    for (const missed of a.questions.missed) report.note(`${rate}×, the app: a question not answered: ${missed}`);
    if (f.questions.answered < f.questions.spoken) report.note(`${rate}×, the floor answered ${f.questions.answered} of ${f.questions.spoken} questions: ${f.questions.missed.join('; ')}`);
    report.table(
      `${rate}× CPU, per minute of call (${a.minutes} min of the app in ${a.sessions} sessions, ${f.minutes} min of the floor in ${f.sessions}, alternating)`,
      ['figure', 'app', 'floor', 'app / floor'],
      [
        ['**CPU, every browser process** (s/min)', fmt(a.cpuSPerMin), fmt(f.cpuSPerMin), fmt(a.cpuSPerMin / f.cpuSPerMin, 2)],
        ...Object.keys({ ...a.byKind, ...f.byKind })
          .sort((x, y) => (a.byKind[y] ?? 0) - (a.byKind[x] ?? 0))
          .map((k) => [`  ${k}`, fmt(a.byKind[k] ?? 0), fmt(f.byKind[k] ?? 0), f.byKind[k] ? fmt((a.byKind[k] ?? 0) / f.byKind[k], 2) : '—']),
        ['**main thread, CPU** (s/min)', fmt(a.mainSPerMin, 2), fmt(f.mainSPerMin, 2), fmt(a.mainSPerMin / f.mainSPerMin, 2)],
        ['  its tasks, wall / script / style / layout (s/min)', `${fmt(a.taskSPerMin, 2)} / ${fmt(a.scriptSPerMin, 2)} / ${fmt(a.styleSPerMin, 2)} / ${fmt(a.layoutSPerMin, 2)}`, `${fmt(f.taskSPerMin, 2)} / ${fmt(f.scriptSPerMin, 2)} / ${fmt(f.styleSPerMin, 2)} / ${fmt(f.layoutSPerMin, 2)}`, ''],
        ['JS heap after GC (MB)', fmt(a.heapMb), fmt(f.heapMb), `+${fmt(a.heapMb - f.heapMb)} MB`],
        ['renderer resident memory (MB)', fmt(a.rendererRssMb, 0), fmt(f.rendererRssMb, 0), fmt(a.rendererRssMb / f.rendererRssMb, 2)],
        ['DOM nodes / listeners', `${a.nodes} / ${a.listeners}`, `${f.nodes} / ${f.listeners}`, ''],
        ['long tasks > 50 ms (longest)', a.longTasks ? `${a.longTasks.count} (${a.longTasks.longestMs} ms)` : '—', f.longTasks ? `${f.longTasks.count} (${f.longTasks.longestMs} ms)` : '—', ''],
        ['video frames received / decoded (WebRTC)', `${a.video.received} / ${a.video.decoded}`, `${f.video.received} / ${f.video.decoded}`, ''],
        ['video frames presented / dropped (the player)', `${a.video.presented} / ${a.video.dropped} (${fmt(a.video.droppedPct, 2)} %)`, `${f.video.presented} / ${f.video.dropped} (${fmt(f.video.droppedPct, 2)} %)`, ''],
        ['video decode per frame (ms)', fmt(a.video.decodeMsPerFrame, 2), fmt(f.video.decodeMsPerFrame, 2), ''],
        ['questions spoken / answered', `${a.questions.spoken} / ${a.questions.answered}`, `${f.questions.spoken} / ${f.questions.answered}`, ''],
        ['load (1 min) at each session\'s start → end', a.load.map((l) => `${l.start} → ${l.end}`).join(', '), f.load.map((l) => `${l.start} → ${l.end}`).join(', '), ''],
      ],
    );
    const threads = [...new Set([...Object.keys(a.byThread).slice(0, 12), ...Object.keys(f.byThread).slice(0, 8)])];
    report.table(
      `${rate}× CPU by thread (s/min, the busiest)`,
      ['thread', 'app', 'floor', 'app − floor'],
      threads.map((t) => [t, fmt(a.byThread[t] ?? 0, 2), fmt(f.byThread[t] ?? 0, 2), fmt((a.byThread[t] ?? 0) - (f.byThread[t] ?? 0), 2)]),
    );
  }

  const profiled = Object.fromEntries(calls.filter((c) => c.profileSummary).map((c) => [c.client, c.profileSummary]));
  figures.profiles = profiled;
  if (profiled.app && profiled.floor) {
    const p = profiled;
    const areas = [...new Set([...p.app.byArea.slice(0, 14).map((x) => x.name), ...p.floor.byArea.slice(0, 6).map((x) => x.name)])];
    const of = (list, name) => list.find((x) => x.name === name)?.ms ?? 0;
    report.table(
      `The main thread's minute at 1× (V8's sampling profiler, ${fmt(p.app.wallMs / 1000, 0)} s of each; its samples are wall time, which a loaded machine stretches; ms)`,
      ['where', 'app', 'floor'],
      [
        ['busy (all but idle)', fmt(p.app.busyMs, 0), fmt(p.floor.busyMs, 0)],
        ['  (program): the renderer outside JavaScript', fmt(p.app.programMs, 0), fmt(p.floor.programMs, 0)],
        ['  garbage collection', fmt(p.app.gcMs, 0), fmt(p.floor.gcMs, 0)],
        ['  JavaScript', fmt(p.app.scriptMs, 0), fmt(p.floor.scriptMs, 0)],
        ...areas.map((name) => [`    ${name}`, fmt(of(p.app.byArea, name), 0), fmt(of(p.floor.byArea, name), 0)]),
      ],
    );
    report.table('The app\'s busiest functions in that minute (self time, ms)', ['function', 'ms'], p.app.byFunction.slice(0, 12).map((x) => [`\`${x.name}\``, fmt(x.ms, 0)]));
    report.table(
      'What the app\'s script time in that minute was for: its entry points (the outermost script frame: a message handler, a timer, an event…), ms',
      ['entry point', 'ms'],
      p.app.byEntry.slice(0, 12).map((x) => [`\`${x.name}\``, fmt(x.ms, 0)]),
    );
  } else {
    report.error('the profiles of the app\'s and the floor\'s minute were not both taken');
  }

  if (long) judgeLong(report, long, figures, round);
  else report.note('The long call was left out (BENCH_CALL_LONG_MIN=0): its goals were not measured.');
}

function judgeLong(report, long, figures, round) {
  const w = long.windows;
  const n = Math.min(ENDS_MIN, Math.floor(w.length / 2)) || 1;
  const [first, last] = [w.slice(0, n), w.slice(-n)];
  const avg = (list, f) => mean(list.map(f));
  /** Least-squares slope per window (a minute) of f over `list`. */
  const slope = (list, f) => {
    if (list.length < 2) return 0;
    const xs = list.map((_, i) => i);
    const ys = list.map(f);
    const mx = mean(xs);
    const my = mean(ys);
    const sxx = sum(xs, (x) => (x - mx) ** 2);
    return xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / sxx;
  };
  // Flat is judged after the first minutes (the call settling in): from minute n + 1 to the end.
  const settled = w.slice(n);
  // Both counted alike, as DevTools sees them (session.mjs, chatLogCounts); CDP's `nodes` counts more.
  const outsideNodes = (x) => x.documentNodes - x.chatNodes;
  const outsideListeners = (x) => x.listeners - x.chatListeners;
  const cpu = { first: avg(first, (x) => x.cpuSPerMin), last: avg(last, (x) => x.cpuSPerMin) };
  const main = { first: avg(first, (x) => x.mainSPerMin), last: avg(last, (x) => x.mainSPerMin) };
  const heap = { first: avg(first, (x) => x.heapMb), last: avg(last, (x) => x.heapMb) };
  const rss = { first: avg(first, (x) => x.rssMb.renderer ?? 0), last: avg(last, (x) => x.rssMb.renderer ?? 0) };
  const perMessage = (x, f) => (x.chatMessages > 0 ? f(x) / x.chatMessages : null);
  figures.long = {
    minutes: w.length,
    windowS: w[0]?.seconds ?? null,
    load: long.load,
    questions: { spoken: long.questions.spoken, answered: long.questions.answered },
    perWindow: w.map((x, i) => ({
      window: i + 1,
      cpuSPerMin: round(x.cpuSPerMin),
      mainSPerMin: round(x.mainSPerMin),
      heapMb: round(x.heapMb),
      rendererRssMb: round(x.rssMb.renderer ?? null, 0),
      nodes: x.nodes,
      listeners: x.listeners,
      chatMessages: x.chatMessages,
      chatNodes: x.chatNodes,
      documentNodes: x.documentNodes,
      chatListeners: x.chatListeners,
      videoPresented: x.video.presented,
      videoDropped: x.video.dropped,
    })),
  };
  report.ratio('long-cpu-last-vs-first', { label: `the long call: CPU per minute, last ${n} / first ${n} minutes`, subject: ['last', round(cpu.last)], reference: ['first', round(cpu.first)], unit: 's/min' });
  report.ratio('long-main-last-vs-first', { label: `the long call: main-thread CPU, last ${n} / first ${n} minutes`, subject: ['last', round(main.last)], reference: ['first', round(main.first)], unit: 's/min' });
  report.ratio('long-rss-last-vs-first', { label: `the long call: renderer resident memory, last ${n} / first ${n} minutes`, subject: ['last', round(rss.last, 0)], reference: ['first', round(rss.first, 0)], unit: 'MB' });
  report.goal('long-cpu', { label: `the long call: CPU per minute, last ${n} minutes / first ${n}`, value: round(cpu.last / cpu.first, 3), limit: GOALS.longCpuRatio, unit: '×', digits: 2 });
  report.goal('long-heap', { label: `the long call: JS heap after GC, last ${n} minutes − first ${n}`, value: round(heap.last - heap.first, 2), limit: GOALS.longHeapGrowthMb, unit: 'MB', digits: 2 });
  report.goal('long-nodes', { label: `the long call: DOM nodes outside the chat log, slope from minute ${n + 1} on`, value: round(slope(settled, outsideNodes), 2), limit: GOALS.longNodesPerMin, unit: '/min', digits: 2 });
  report.goal('long-listeners', { label: `the long call: event listeners outside the chat log, slope from minute ${n + 1} on`, value: round(slope(settled, outsideListeners), 2), limit: GOALS.longListenersPerMin, unit: '/min', digits: 2 });
  report.goal('long-answered', { label: `the long call: questions not answered, of ${long.questions.spoken}`, value: long.questions.spoken > 0 ? long.questions.spoken - long.questions.answered : null, limit: 0, unit: '' });
  const [a, b] = [first.at(-1), last.at(-1)];
  report.table(
    `The app's long call: ${w.length} minutes, ${n} at each end`,
    ['figure', `first ${n} min`, `last ${n} min`, 'last / first'],
    [
      ['CPU, every browser process (s/min)', fmt(cpu.first), fmt(cpu.last), fmt(cpu.last / cpu.first, 2)],
      ['main thread, CPU (s/min)', fmt(main.first, 2), fmt(main.last, 2), fmt(main.last / main.first, 2)],
      ['JS heap after GC (MB)', fmt(heap.first), fmt(heap.last), `${heap.last >= heap.first ? '+' : ''}${fmt(heap.last - heap.first, 2)} MB`],
      ['renderer resident memory (MB)', fmt(rss.first, 0), fmt(rss.last, 0), fmt(rss.last / rss.first, 2)],
      ['DOM nodes / listeners outside the chat log (at the end of each)', `${outsideNodes(a)} / ${outsideListeners(a)}`, `${outsideNodes(b)} / ${outsideListeners(b)}`, ''],
      ['chat log: messages, nodes, listeners', `${a.chatMessages}, ${a.chatNodes}, ${a.chatListeners}`, `${b.chatMessages}, ${b.chatNodes}, ${b.chatListeners}`, ''],
      ['chat log: nodes / listeners per message', `${fmt(perMessage(a, (x) => x.chatNodes))} / ${fmt(perMessage(a, (x) => x.chatListeners), 2)}`, `${fmt(perMessage(b, (x) => x.chatNodes))} / ${fmt(perMessage(b, (x) => x.chatListeners), 2)}`, ''],
      ['video frames presented / dropped', `${sum(first, (x) => x.video.presented)} / ${sum(first, (x) => x.video.dropped)}`, `${sum(last, (x) => x.video.presented)} / ${sum(last, (x) => x.video.dropped)}`, ''],
    ],
  );
}
