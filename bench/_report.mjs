/**
 * What every benchmark reports, the same way: its goals as named thresholds, its
 * ratios against a reference measured in the same run, its raw figures, the machine
 * and the command that reproduce it. Written to bench/results/NAME.json (the README's
 * tables are generated from those files by bench/_tables.mjs), summarised on stdout,
 * and turned into the exit code: 0 every goal met, 1 a goal missed, 2 the run could
 * not measure (a build, a stand-in, a call or a figure that failed). A run that could
 * not measure is never a pass, and never "skipped".
 * A helper, not a benchmark (bench/run.mjs skips files named _*.mjs).
 *
 *   await runBench('call-start', { what: '…', chromium: CHROMIUM_PATH }, async (report) => {
 *     report.goal('median', { label: '…', value: 81, limit: 500, unit: 'ms' });
 *     report.ratio('kept-vs-loading', { label: '…', subject: ['kept', 81], reference: ['loading', 1606], unit: 'ms' });
 *     report.figures.rounds = [...];
 *   });
 *
 * Quick runs (`--quick` or BENCH_QUICK=1: fewer rounds, a shorter session) check the
 * wiring only: they are marked quick and written to NAME.quick.json, which the table
 * generator ignores, so they never replace a full result.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
export const RESULTS_DIR = fileURLToPath(new URL('results/', import.meta.url));

/** Exit codes, so bench/run.mjs (and a shell) can tell a miss from a run that measured nothing. */
export const EXIT = { pass: 0, fail: 1, error: 2 };

/** The benchmarks: every bench/*.mjs but run.mjs and the helpers named _*.mjs, by name. */
export function listBenchmarks() {
  return readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && !f.startsWith('_'))
    .map((f) => f.slice(0, -'.mjs'.length))
    .sort();
}

export const resultsFile = (name, quick = false) => `${RESULTS_DIR}${name}${quick ? '.quick' : ''}.json`;

/** `--quick` on the command line or BENCH_QUICK=1: fewer rounds, for checking the wiring. */
export const isQuick = () => process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

const COMPARISONS = {
  '<=': (v, l) => v <= l,
  '<': (v, l) => v < l,
  '>=': (v, l) => v >= l,
  '>': (v, l) => v > l,
  '==': (v, l) => v === l,
};
export const SYMBOL = { '<=': '≤', '<': '<', '>=': '≥', '>': '>', '==': '=' };

/** A figure is measured only if it is a finite number: null, NaN and Infinity mean it was not. */
const measured = (v) => typeof v === 'number' && Number.isFinite(v);

/** `a / b`, rounded; 0 / 0 is 1 (the same), anything else over 0 is undefined (null). */
export function ratioOf(a, b, digits = 3) {
  if (!measured(a) || !measured(b)) return null;
  if (b === 0) return a === 0 ? 1 : null;
  return Number((a / b).toFixed(digits));
}

/** A number as the tables show it: grouped thousands, `digits` decimals (default by size). */
export function formatNumber(value, digits) {
  if (!measured(value)) return '—';
  const d = digits ?? (Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

export const withUnit = (value, unit, digits) => {
  const text = formatNumber(value, digits);
  if (text === '—' || !unit) return text;
  return unit === '%' || unit === '×' ? `${text}${unit}` : `${text} ${unit}`;
};

/** The first line of `/usr/bin/chromium --version`'s version number, or null. */
function chromiumVersion(path) {
  try {
    // The Debian wrapper script prints shell noise on stderr on some machines: only stdout is read.
    const out = execFileSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 20_000 });
    return /\d+(\.\d+){3}/.exec(out)?.[0] ?? out.trim();
  } catch {
    return null;
  }
}

function debianVersion() {
  try {
    return readFileSync('/etc/debian_version', 'utf8').trim();
  } catch {
    return null;
  }
}

/** What the figures depend on. `chromium`: the browser's path when the benchmark uses one. */
export function machine({ chromium } = {}) {
  const cpu = cpus();
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? null,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    os: `${type()} ${release()}`,
    debian: debianVersion(),
    node: process.version,
    chromium: chromium ? chromiumVersion(chromium) : null,
    // The 1-minute load when the run started and ended: this machine is shared, and a busy one shows in the timings.
    load: { start: Number(loadavg()[0].toFixed(2)), end: null },
  };
}

/** The command that reproduces the run: the BENCH_* settings in force, the script and its arguments. */
function commandLine(name) {
  const env = Object.entries(process.env)
    .filter(([key]) => key.startsWith('BENCH_'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${/^[\w.,:/-]*$/.test(value) ? value : JSON.stringify(value)}`);
  return [...env, 'node', `bench/${name}.mjs`, ...process.argv.slice(2)].join(' ');
}

/**
 * A report being filled. `overrides` (date, machine, command) are for a report rebuilt
 * from an earlier run's figures rather than measured now.
 */
export function createReport(name, { what = '', quick = isQuick(), chromium, ...overrides } = {}) {
  const report = {
    benchmark: name,
    what,
    status: 'pass',
    quick,
    date: overrides.date ?? new Date().toISOString(),
    command: overrides.command ?? commandLine(name),
    machine: overrides.machine ?? machine({ chromium }),
    goals: [],
    ratios: [],
    errors: [],
    notes: [],
    tables: [],
    settings: {},
    figures: {},
  };

  return Object.assign(report, {
    /**
     * A named threshold: `value` compared with `limit` by `cmp` ('<=' by default).
     * A value that is not a finite number is a figure that came out missing: the run
     * could not measure. Returns whether it was met (null when not measured).
     */
    goal(goalName, { label, value, limit, cmp = '<=', unit = '', digits }) {
      if (!COMPARISONS[cmp]) throw new Error(`goal ${goalName}: unknown comparison ${cmp}`);
      const ok = measured(value) ? COMPARISONS[cmp](value, limit) : null;
      if (ok === null) report.error(`goal ${goalName} (${label}): the figure came out missing (${String(value)})`);
      report.goals.push({ name: goalName, label, value: measured(value) ? value : null, limit, cmp, unit, ...(digits !== undefined && { digits }), met: ok });
      return ok;
    },
    /**
     * A ratio against a reference measured in the same run: subject and reference are
     * [label, value]; `digits` for the ratio, `valueDigits` for how the two values are shown.
     */
    ratio(ratioName, { label, subject, reference, unit = '', digits = 3, valueDigits }) {
      const value = ratioOf(subject[1], reference[1], digits);
      report.ratios.push({
        name: ratioName,
        label,
        subject: { label: subject[0], value: measured(subject[1]) ? subject[1] : null },
        reference: { label: reference[0], value: measured(reference[1]) ? reference[1] : null },
        unit,
        ...(valueDigits !== undefined && { valueDigits }),
        digits,
        ratio: value,
      });
      return value;
    },
    /** The run could not measure something: it ends with status "error" and a non-zero exit. */
    error(reason) {
      report.errors.push(String(reason));
    },
    /** Analysis that belongs beside the figures (why a goal misses, what a figure includes). */
    note(text) {
      report.notes.push(text);
    },
    /** A table of the main figures for the README: cells are strings, formatted by the benchmark. */
    table(title, head, rows) {
      report.tables.push({ title, head, rows: rows.filter(Boolean).map((row) => row.map((cell) => String(cell ?? '—'))) });
    },
  });
}

/** The report as written: its methods and its status worked out. */
export function finalize(report) {
  const { goal: _g, ratio: _r, error: _e, note: _n, table: _t, ...data } = report;
  if (data.machine.load && data.machine.load.end === null) data.machine.load.end = Number(loadavg()[0].toFixed(2));
  // A run that judged nothing measured nothing: that is never a pass.
  if (data.goals.length === 0 && data.errors.length === 0) data.errors.push('no goal was measured');
  data.status = data.errors.length > 0 ? 'error' : data.goals.some((g) => g.met === false) ? 'fail' : 'pass';
  return data;
}

export function writeReport(data, file = resultsFile(data.benchmark, data.quick)) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** A limit as the benchmark wrote it (0.1, not 0.100): limits are round numbers typed in the benchmark. */
export const limitText = (g) => withUnit(g.limit, g.unit, (String(g.limit).split('.')[1] ?? '').length);

const describeGoal = (g) => `${g.name}: ${g.label}: ${withUnit(g.value, g.unit, g.digits)} (goal ${SYMBOL[g.cmp]} ${limitText(g)})`;

/** The lines that say how a run went: every missed goal and every reason it could not measure. */
export function verdictLines(data) {
  const lines = [];
  for (const reason of data.errors) lines.push(`could not measure: ${reason}`);
  for (const g of data.goals.filter((x) => x.met === false)) lines.push(`missed ${describeGoal(g)}`);
  return lines;
}

function printSummary(data, file) {
  const met = data.goals.filter((g) => g.met === true).length;
  const head = { pass: 'PASS', fail: 'FAIL', error: 'ERROR (could not measure)' }[data.status];
  console.log(`\n${data.benchmark}: ${head}, ${met} of ${data.goals.length} goals met${data.quick ? ' (quick run: checks the wiring, not a result of record)' : ''}`);
  for (const g of data.goals) console.log(`  ${g.met === true ? '✔' : g.met === false ? '✘' : '?'} ${describeGoal(g)}`);
  for (const r of data.ratios) {
    const ratio = r.ratio === null ? 'undefined' : formatNumber(r.ratio, r.digits ?? 3);
    console.log(`  ratio ${r.name}: ${withUnit(r.subject.value, r.unit, r.valueDigits)} / ${withUnit(r.reference.value, r.unit, r.valueDigits)} = ${ratio} (${r.label})`);
  }
  for (const reason of data.errors) console.log(`  ! could not measure: ${reason}`);
  console.log(`  results: ${relative(ROOT, file)}`);
}

/**
 * Runs a benchmark's body with a fresh report, then writes, prints and sets the exit
 * code. A throw from the body is a run that could not measure: the figures gathered
 * until then are still written, with status "error" and the reason.
 */
export async function runBench(name, options, body) {
  const report = createReport(name, options);
  try {
    await body(report);
  } catch (error) {
    // Playwright's messages go on with a call log: the first lines say what failed.
    report.error((error instanceof Error ? error.message : String(error)).split('\n').slice(0, 3).join(' / '));
    if (error instanceof Error && error.stack) console.error(error.stack);
  }
  const data = finalize(report);
  const file = writeReport(data);
  printSummary(data, file);
  process.exitCode = EXIT[data.status];
  return data;
}
