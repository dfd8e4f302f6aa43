/**
 * `npm run bench`: runs every benchmark in bench/ (every *.mjs but this file and
 * helpers named _*.mjs), one after the other (they share 2 cores and would
 * disturb each other's timings), each in its own Node process. Then prints, per
 * benchmark, PASS or FAIL and every goal it missed, read from the results file it
 * wrote (bench/_report.mjs); a crash, or no results file written by this run, is a
 * failure: it could not measure. Regenerates the results section of
 * bench/README.md (bench/_tables.mjs) and exits non-zero when any benchmark failed.
 *
 *   npm run bench                       every benchmark
 *   npm run bench -- start-latency      only those whose file name contains an argument
 *   npm run bench -- --quick            quick runs (BENCH_QUICK=1): they write NAME.quick.json,
 *                                       and the README's tables are left alone
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createReport, finalize, listBenchmarks, resultsFile, verdictLines, writeReport } from './_report.mjs';
import { updateReadme } from './_tables.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1';
const only = args.filter((a) => a !== '--quick');
const benches = listBenchmarks().filter((name) => only.length === 0 || only.some((word) => name.includes(word)));
if (benches.length === 0) {
  console.error(`no benchmark in bench/ matches ${only.join(', ')}`);
  process.exit(1);
}

/**
 * How one benchmark went, from its exit and the results file it wrote. A file older
 * than the run is an earlier run's: this one wrote none, so it could not measure.
 */
function verdict(name, started, { status, signal }) {
  const file = resultsFile(name, quick);
  const data = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
  const exit = signal ?? `exit ${status}`;
  if (!data || Date.parse(data.date) < started) {
    // An earlier run's file must not stand for this one in the README: it is replaced by this run's error.
    const report = createReport(name, { quick, command: `node bench/${name}.mjs${quick ? ' --quick' : ''}` });
    report.error(`the benchmark ended (${exit}) without writing its results`);
    writeReport(finalize(report));
    return { ok: false, lines: [`could not measure: no results written (${exit})`] };
  }
  const lines = verdictLines(data);
  // The file says pass but the process did not exit 0: it crashed after writing, or while closing.
  if (data.status === 'pass' && status !== 0) lines.push(`could not measure: the benchmark ended with ${exit} after writing its results`);
  return { ok: data.status === 'pass' && status === 0, lines };
}

const results = [];
for (const name of benches) {
  console.log(`\n=== ${name}${quick ? ' (quick)' : ''}`);
  const started = Date.now();
  const env = quick ? { ...process.env, BENCH_QUICK: '1' } : process.env;
  const outcome = spawnSync(process.execPath, [fileURLToPath(new URL(`${name}.mjs`, import.meta.url))], { stdio: 'inherit', env });
  results.push({ name, seconds: Math.round((Date.now() - started) / 1000), ...verdict(name, started, outcome) });
}

console.log(`\n=== benchmarks${quick ? ' (quick runs: checking the wiring, not results of record)' : ''}`);
for (const r of results) {
  console.log(`  ${r.ok ? 'PASS' : 'FAIL'}  ${r.name} (${r.seconds} s)`);
  for (const line of r.lines) console.log(`          ${line}`);
}
if (quick) console.log('bench/README.md left alone: its tables come from full runs only');
else {
  try {
    console.log(`bench/README.md: results section ${updateReadme() ? 'rewritten' : 'unchanged'}`);
  } catch (error) {
    // The tables are a by-product: a broken README must not hide the benchmarks' verdicts above.
    console.error(`bench/README.md: could not regenerate the results section: ${error.message}`);
    process.exitCode = 1;
  }
}
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
