/**
 * The voice bench's goals, ratios, README tables and notes, worked out from its raw
 * figures (one record per throttle rate, as bench/voice-pipeline.mjs measures them).
 * Pure over plain data, so a results file can be rebuilt from its figures alone.
 *
 * Goals, per rate unless said:
 *   main-cpu-ratio-Nx    main-thread CPU on audio per minute of call, ours / vad-web ≤ 0.1
 *   long-tasks-Nx        our main-thread tasks over 50 ms of CPU in the steady window: none
 *   vad-frame-4x         at 4×: VAD CPU per frame in our worker, p95, < 10 % of the 96 ms frame
 *   segments-Nx          speech segments within ±1 frame of vad-web's (start and end), on the
 *                        same 16 kHz samples (the 16 kHz context phase): the framing, transport,
 *                        model and state machine, which must agree. At the device's rate each
 *                        hears its own resampler, and those differ by 2 frames on some onsets
 *                        with ours the nearer to a reference (bench/vad-resampler.mjs owns that
 *                        goal); that largest |Δ| is reported in a note
 *   segments-paired-Nx   every segment at the device's rate has a partner of the same kind in vad-web's
 */
import { FRAME_MS } from './metrics.mjs';
import { HEADER, rowsFor } from './table.mjs';

export const LIMITS = { mainCpuRatio: 0.1, longTasks: 0, framePct: 10, frameGoalRate: 4, segmentFrames: 1 };

/** Adds the goals, ratios, tables and notes of `rates` (the raw figures) to `report`. */
export function judge(report, rates) {
  for (const r of rates) {
    const x = `${r.rate}x`;
    const at = `${r.rate}×`;
    const { ours, vadweb } = r;
    for (const [name, run] of [['ours', ours], ['vad-web', vadweb]]) {
      for (const error of run.errors ?? []) report.error(`${at}: ${name} reported an error: ${error}`);
    }

    const mainCpu = report.ratio(`main-cpu-${x}`, {
      label: `${at}: main-thread CPU on audio per minute of call (idle page subtracted)`,
      subject: ['ours', ours.mainMsPerMin.cpu],
      reference: ['vad-web', vadweb.mainMsPerMin.cpu],
      unit: 'ms',
    });
    report.goal(`main-cpu-ratio-${x}`, { label: `${at}: main-thread CPU on audio per minute of call, ours / vad-web`, value: mainCpu, limit: LIMITS.mainCpuRatio, unit: '×', digits: 3 });
    report.goal(`long-tasks-${x}`, { label: `${at}: our main-thread tasks over 50 ms of CPU, steady`, value: ours.longTasks.steady.cpu, limit: LIMITS.longTasks, unit: 'tasks' });
    if (r.rate === LIMITS.frameGoalRate) {
      report.goal(`vad-frame-${x}`, {
        label: `${at}: VAD CPU per frame in our worker, p95, share of the ${FRAME_MS} ms frame`,
        value: ours.perFrame.atRateP95PctOfFrame,
        limit: LIMITS.framePct,
        cmp: '<',
        unit: '%',
        digits: 1,
      });
    }
    report.ratio(`vad-frame-p95-${x}`, {
      label: `${at}: VAD CPU per frame, p95 (ours in its worker, vad-web on the main thread)`,
      subject: ['ours', ours.perFrame.atRateP95Ms],
      reference: ['vad-web', vadweb.perFrame.atRateP95Ms],
      unit: 'ms',
    });

    // No pair at all would make "within ±1 frame" trivially true: the run heard no speech.
    if (r.segments.pairs.length === 0) report.error(`${at}: no speech segment of ours could be paired with vad-web's`);
    // On the same 16 kHz samples (no resampler on either side); a run whose context is 16 kHz already has only those.
    const same = r.segments16k ?? r.segments;
    if (same.pairs.length === 0) report.error(`${at}: no speech segment of ours could be paired with vad-web's at 16 kHz`);
    report.goal(`segments-${x}`, { label: `${at}: speech segments vs vad-web's on the same 16 kHz samples, largest |Δ| of a start or end`, value: same.maxAbsDeltaFrames, limit: LIMITS.segmentFrames, unit: 'frames' });
    if (r.segments16k) {
      report.note(
        `${at}: at ${r.sampleRate} Hz, each VAD behind its own resampler, segments differ from vad-web's by ${r.segments.maxAbsDeltaFrames} frame(s) at most: the resamplers' difference, which bench/vad-resampler.mjs judges against a reference (not a goal here).`,
      );
    }
    const unpaired = r.segments.unmatched.ours + r.segments.unmatched.vadweb + r.segments.pairs.filter((p) => p.misfire[0] !== p.misfire[1]).length;
    report.goal(`segments-paired-${x}`, { label: `${at}: segments without a partner of the same kind in vad-web's`, value: unpaired, limit: 0, unit: 'segments' });

    report.ratio(`startup-main-cpu-${x}`, {
      label: `${at}: start-up main-thread CPU`,
      subject: ['ours', ours.startup.mainCpuMs],
      reference: ['vad-web', vadweb.startup.mainCpuMs],
      unit: 'ms',
    });
    const eos = r.endOfSpeechToSend;
    if (eos) {
      report.ratio(`send-latency-${x}`, {
        label: `${at}: end of speech → message sent, median, through the app's sentence rule`,
        subject: ['ours', eos.ours.medianMs],
        reference: ['vad-web', eos.vadweb.medianMs],
        unit: 'ms',
      });
      if (eos.recognizerErrors?.length) report.note(`${at}: the recognizer reported ${eos.recognizerErrors.length} errors: ${eos.recognizerErrors.join('; ')}`);
    }

    report.table(
      `CPU throttle ${at}, ${r.sampleRate} Hz context (idle main thread ${r.idle.mainMsPerMin.cpu} ms CPU per minute, subtracted)`,
      HEADER.slice(0, 4),
      rowsFor(r)
        .filter(Boolean)
        .map((row) => row.slice(0, 4)),
    );

    if (ours.perFrame.scaledFromUnthrottled) {
      report.note(
        `${at}: our worker's per-frame figure is its unthrottled CPU time × ${r.slowdown ?? r.rate} (measured p95 ${ours.perFrame.cpuP95Ms} ms): CDP's CPU throttling reaches only the page's main thread, not workers.`,
      );
    }
    if (r.app?.allMs?.length) {
      report.note(`${at}: end of speech → send in the app, each sentence (ms): ${r.app.allMs.join(', ')}; median ${r.app.medianMs}, max ${r.app.maxMs}.`);
    }
    if (r.slowdown !== undefined && r.slowdown !== r.rate) {
      report.note(`${at}: Lighthouse's ${r.rate}× phone: this host (benchmarkIndex ${report.settings?.hostBenchmarkIndex ?? '?'}) slowed ${r.slowdown}×, main thread and worker alike.`);
    }
    for (const problem of r.problems ?? []) report.note(`${at}: ${problem}`);
  }
}
