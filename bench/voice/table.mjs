/**
 * The voice bench's figures, ours beside vad-web's from the same run, one table per
 * throttle rate: printed by the driver, and (without the goal column) the README's table.
 */
import { ratio } from './metrics.mjs';

const fmt = (v, unit = '') => (v === null || v === undefined ? '—' : `${v}${unit}`);
const mark = (ok) => (ok === null ? '' : ok ? 'met' : 'MISSED');

/** Rows of [figure, ours, vad-web, ours/vad-web, goal] for one rate's figures. */
export function rowsFor(r) {
  const { ours, vadweb } = r;
  const pf = (x) => x.perFrame;
  const oursP95Pct = pf(ours).atRateP95PctOfFrame;
  const scaled = pf(ours).scaledFromUnthrottled ? ` (1×·${r.rate})` : '';
  const lt = (x, when) =>
    `${x.longTasks[when].cpu} cpu / ${x.longTasks.observer[when]} wall (longest ${Math.round(x.longTasks[when].longestCpuMs)} ms cpu)`;
  const oursLong = ours.longTasks.steady.cpu + ours.longTasks.startup.cpu;
  const eos = r.endOfSpeechToSend;
  return [
    ['main-thread ms per min of call (CPU)', fmt(ours.mainMsPerMin.cpu), fmt(vadweb.mainMsPerMin.cpu), fmt(ratio(ours.mainMsPerMin.cpu, vadweb.mainMsPerMin.cpu)), `≤ 0.1× ${mark(ratio(ours.mainMsPerMin.cpu, vadweb.mainMsPerMin.cpu) <= 0.1)}`],
    ['main-thread ms per min (wall, info)', fmt(ours.mainMsPerMin.wall), fmt(vadweb.mainMsPerMin.wall), fmt(ratio(ours.mainMsPerMin.wall, vadweb.mainMsPerMin.wall)), ''],
    ['long tasks > 50 ms, steady', lt(ours, 'steady'), lt(vadweb, 'steady'), '', `idle: ${r.idle.longTasks.cpu} cpu / ${r.idle.longTasks.observer} wall`],
    ['long tasks > 50 ms, start-up', lt(ours, 'startup'), lt(vadweb, 'startup'), '', `ours 0 (cpu) ${mark(oursLong === 0)}`],
    ['VAD per frame median, CPU ms', `${fmt(pf(ours).atRateMedianMs)}${scaled}`, fmt(pf(vadweb).atRateMedianMs), fmt(ratio(pf(ours).atRateMedianMs, pf(vadweb).atRateMedianMs)), ''],
    [
      'VAD per frame p95, CPU ms (% of 96)',
      `${fmt(pf(ours).atRateP95Ms)} (${fmt(oursP95Pct, '%')})${scaled}`,
      `${fmt(pf(vadweb).atRateP95Ms)} (${fmt(pf(vadweb).atRateP95PctOfFrame, '%')})`,
      fmt(ratio(pf(ours).atRateP95Ms, pf(vadweb).atRateP95Ms)),
      r.rate === 4 ? `< 10% ${mark(oursP95Pct !== null && oursP95Pct < 10)}` : '',
    ],
    ['VAD per frame median/p95, wall ms', `${fmt(pf(ours).wallMedianMs)} / ${fmt(pf(ours).wallP95Ms)}`, `${fmt(pf(vadweb).wallMedianMs)} / ${fmt(pf(vadweb).wallP95Ms)}`, '', ''],
    ['start-up: wall ms / main-thread CPU ms', `${fmt(ours.startup.wallMs)} / ${fmt(ours.startup.mainCpuMs)}`, `${fmt(vadweb.startup.wallMs)} / ${fmt(vadweb.startup.mainCpuMs)}`, fmt(ratio(ours.startup.mainCpuMs, vadweb.startup.mainCpuMs)), ''],
    [
      'segments: pairs, max |Δstart|,|Δend| frames',
      `${r.segments.pairs.length} pairs`,
      `unmatched ${r.segments.unmatched.ours}/${r.segments.unmatched.vadweb}`,
      `max ${r.segments.maxAbsDeltaFrames}`,
      `±1 ${mark(r.segments.withinOneFrame)}`,
    ],
    r.segments16k
      ? [
          '  same, 16 kHz context (no resampling)',
          `${r.segments16k.pairs.length} pairs`,
          `unmatched ${r.segments16k.unmatched.ours}/${r.segments16k.unmatched.vadweb}`,
          `max ${r.segments16k.maxAbsDeltaFrames}`,
          `±1 ${mark(r.segments16k.withinOneFrame)}`,
        ]
      : null,
    ['speechEnd on main thread after its audio, ms', `${fmt(r.eventLagMs.ours.medianMs)} (max ${fmt(r.eventLagMs.ours.maxMs)})`, `${fmt(r.eventLagMs.vadweb.medianMs)} (max ${fmt(r.eventLagMs.vadweb.maxMs)})`, '', ''],
    eos
      ? ['end of speech → send, ms (median, max)', `${fmt(eos.ours.medianMs)} (${fmt(eos.ours.maxMs)}) n=${eos.ours.sentences}`, `${fmt(eos.vadweb.medianMs)} (${fmt(eos.vadweb.maxMs)}) n=${eos.vadweb.sentences}`, fmt(ratio(eos.ours.medianMs, eos.vadweb.medianMs)), '']
      : ['end of speech → send', 'not measured (no stand-in)', '', '', ''],
    appRow(r.app),
  ];
}

/** The real app's end of speech → send: null when not asked for (BENCH_VOICE_APP=0), `error` when it failed. */
function appRow(app) {
  if (!app) return ['  in the app (session log)', 'not measured (BENCH_VOICE_APP=0)', '', '', ''];
  if (app.error) return ['  in the app (session log)', `could not measure: ${app.error}`, '', '', ''];
  return ['  in the app (session log), ms (median, max)', `${fmt(app.medianMs)} (${fmt(app.maxMs)}) n=${app.sentences}`, 'n/a', '', ''];
}

export const HEADER = ['figure', 'ours', 'vad-web', 'ours/vad-web', 'goal'];

export function printTable(rates) {
  const header = HEADER;
  for (const r of rates) {
    const rows = [header, ...rowsFor(r).filter(Boolean)];
    const widths = header.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
    console.log(`\nCPU throttle ${r.rate}×, ${r.sampleRate} Hz context (idle main thread ${r.idle.mainMsPerMin.cpu} ms CPU per min, subtracted)`);
    for (const [i, row] of rows.entries()) {
      console.log(row.map((cell, c) => String(cell).padEnd(widths[c])).join('  '));
      if (i === 0) console.log(widths.map((w) => '─'.repeat(w)).join('  '));
    }
    for (const p of r.problems) console.log(`  ! ${p}`);
  }
}
