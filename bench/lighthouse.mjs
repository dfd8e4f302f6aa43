/**
 * Goals: what Lighthouse 12 says of the first visit to `/25d/demo` on a phone, as a new
 * visitor would run it: its default mobile form factor with simulated throttling (slow
 * 4G: 150 ms RTT, 1.6 Mbit/s; 4× CPU). Median of RUNS runs per language (`en`, `cht`):
 * performance ≥ 95, accessibility, best practices and SEO 100, first contentful paint
 * ≤ 1.5 s, largest contentful paint ≤ 2.0 s, total blocking time ≤ 100 ms, CLS 0.
 *
 * Builds the app (mode standin) into .cache/bench-dist, serves it from its own stand-in
 * (which sends the build's brotli copies, as `npm start` does) and runs Lighthouse's Node
 * API against Debian's Chromium (never a downloaded browser), headless, a fresh profile
 * per run. The language is the browser's (`--lang`, `--accept-lang`): the app picks it
 * from navigator.languages on a first visit, and Lighthouse clears storage before each run.
 *
 * The CPU throttling is calibrated to the host, as Lighthouse's throttling guide asks: its
 * default 4× slowdown turns a high-end desktop (benchmarkIndex about 1750) into a mid-tier
 * phone, so on a slower host it is scaled down in proportion (4 × index / 1750, at least 1×):
 * the phone simulated is the same on any machine. The host's index is the median of five
 * readings of Lighthouse's own benchmark in a headless Chromium (bench/_host.mjs), taken once
 * before the runs; every run uses the slowdown it gives. The results record it, the readings
 * and the index Lighthouse read at the start of each run: a single reading moves by half
 * between runs even on a quiet host (1,064 to 1,894 within two minutes on 2026-11-29), so
 * chasing each run's own reading never settled.
 *
 * Reference: the previous run's medians (bench/results/lighthouse.json before this run),
 * printed beside this run's.
 *
 *   node bench/lighthouse.mjs          (BENCH_SKIP_BUILD=1 reuses the last build)
 *   node bench/lighthouse.mjs --quick  one run per language
 * Writes bench/results/lighthouse.json (bench/_report.mjs); exit 1 on a missed goal, 2 when
 * it could not measure.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { buildApp, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, resultsFile, runBench } from './_report.mjs';
import { chromium } from '@playwright/test';
import { hostBenchmarkIndex, PHONE, phoneSlowdown } from './_host.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? (isQuick() ? 1 : 5));
const OUT_DIR = join(ROOT, '.cache', 'bench-dist');
/** The app's language → the browser language a visitor of that language has. */
const LANGS = { en: 'en-US', cht: 'zh-TW' };
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

/** Goals on each language's medians: [key, label, limit, cmp, unit, digits]. */
const GOALS = [
  ['performance', 'performance score', 95, '>=', '', 0],
  ['accessibility', 'accessibility score', 100, '>=', '', 0],
  ['best-practices', 'best practices score', 100, '>=', '', 0],
  ['seo', 'SEO score', 100, '>=', '', 0],
  ['fcp', 'first contentful paint', 1.5, '<=', 's', 2],
  ['lcp', 'largest contentful paint', 2.0, '<=', 's', 2],
  ['tbt', 'total blocking time', 100, '<=', 'ms', 0],
  ['cls', 'cumulative layout shift', 0, '<=', '', 3],
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The slowdown that makes this host the phone Lighthouse's default makes of a high-end desktop. */
const calibratedSlowdown = (benchmarkIndex) => phoneSlowdown(PHONE.slowdown, benchmarkIndex);

/** Readings of the host's benchmarkIndex whose median calibrates the runs. */
const HOST_READINGS = 5;

/** One Lighthouse run in a fresh headless Chromium speaking `browserLang`, with `cpuSlowdownMultiplier`. */
async function runOnce(url, browserLang, cpuSlowdownMultiplier = PHONE.slowdown) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'lh-profile-'));
  const flags = ['--headless=new', '--disable-gpu', `--lang=${browserLang}`, `--accept-lang=${browserLang}`, `--user-data-dir=${userDataDir}`];
  if (process.getuid?.() === 0) flags.push('--no-sandbox');
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: flags, userDataDir: false });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES }, {
      extends: 'lighthouse:default',
      settings: { throttling: { cpuSlowdownMultiplier } },
    });
    if (!result) throw new Error('Lighthouse returned no result');
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const audit = (id) => lhr.audits[id]?.numericValue ?? null;
    const failed = Object.values(lhr.categories).flatMap((c) =>
      c.auditRefs.filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1).map((ref) => `${c.id}: ${ref.id} (${lhr.audits[ref.id].score})`),
    );
    return {
      performance: Math.round((lhr.categories.performance?.score ?? NaN) * 100),
      accessibility: Math.round((lhr.categories.accessibility?.score ?? NaN) * 100),
      'best-practices': Math.round((lhr.categories['best-practices']?.score ?? NaN) * 100),
      seo: Math.round((lhr.categories.seo?.score ?? NaN) * 100),
      fcp: audit('first-contentful-paint') / 1000,
      lcp: audit('largest-contentful-paint') / 1000,
      tbt: audit('total-blocking-time'),
      cls: audit('cumulative-layout-shift'),
      // Without the stand-in's origin: its port changes every run.
      lcpElement: lhr.audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node?.snippet?.replaceAll(new URL(url).origin, '') ?? null,
      shifted: (lhr.audits['layout-shifts']?.details?.items ?? []).map((item) => `${item.node?.snippet ?? '?'} (${Number(item.score).toFixed(3)})`),
      belowFull: failed,
      // What blocked: the longest main-thread tasks Lighthouse saw (simulated ms, the script they ran).
      longTasks: (lhr.audits['long-tasks']?.details?.items ?? []).slice(0, 5).map((t) => ({ url: String(t.url ?? '').replaceAll(new URL(url).origin, ''), ms: Math.round(t.duration ?? 0), at: Math.round(t.startTime ?? 0) })),
      lighthouse: lhr.lighthouseVersion,
      benchmarkIndex: lhr.environment?.benchmarkIndex ?? null,
      cpuSlowdownMultiplier: lhr.configSettings?.throttling?.cpuSlowdownMultiplier ?? null,
    };
  } finally {
    await chrome.kill();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

const previous = (() => {
  const file = resultsFile('lighthouse');
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
})();
const previousValue = (name) => previous?.goals?.find((g) => g.name === name)?.value ?? null;

const show = (value, unit, digits) => (value === null || value === undefined ? '—' : `${Number(value).toFixed(digits)}${unit ? ` ${unit}` : ''}`);

await runBench('lighthouse', { what: 'Lighthouse 12, mobile with simulated slow 4G and CPU throttling calibrated to the host, on /25d/demo', chromium: CHROMIUM_PATH }, async (report) => {
  buildApp(OUT_DIR);
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: OUT_DIR } });
  const runs = {};
  let slowdown = PHONE.slowdown;
  try {
    // The calibration: the host's benchmarkIndex, Lighthouse's own benchmark, median of five.
    const probe = await chromium.launch({ executablePath: CHROMIUM_PATH });
    const calibration = await hostBenchmarkIndex(probe, HOST_READINGS).finally(() => probe.close());
    if (!(calibration.index > 0)) throw new Error('the host benchmarkIndex could not be read: the CPU throttling cannot be calibrated');
    slowdown = calibratedSlowdown(calibration.index);
    console.log(`  host benchmarkIndex ${Math.round(calibration.index)} (readings ${calibration.readings.join(', ')}): CPU slowdown ${slowdown}× (Lighthouse's ${PHONE.slowdown}× is for an index of ${PHONE.hostIndex})`);
    report.settings = {
      page: '/25d/demo',
      runs: RUNS,
      languages: LANGS,
      formFactor: 'mobile (Lighthouse default)',
      throttling: 'simulated: slow 4G (Lighthouse default), CPU slowdown calibrated to the host',
      hostBenchmarkIndex: Math.round(calibration.index),
      hostReadings: calibration.readings,
      cpuSlowdownMultiplier: slowdown,
    };
    for (const [lang, browserLang] of Object.entries(LANGS)) {
      runs[lang] = [];
      for (let i = 0; i < RUNS; i += 1) {
        const run = await runOnce(`${standin.url}/25d/demo`, browserLang, slowdown);
        console.log(`  ${lang} run ${i + 1}: perf ${run.performance}, a11y ${run.accessibility}, bp ${run['best-practices']}, seo ${run.seo}, FCP ${run.fcp.toFixed(2)} s, LCP ${run.lcp.toFixed(2)} s, TBT ${Math.round(run.tbt)} ms, CLS ${run.cls.toFixed(3)}`);
        runs[lang].push(run);
      }
    }
  } finally {
    await standin.stop();
  }
  report.figures.runs = runs;

  const rows = [];
  for (const lang of Object.keys(LANGS)) {
    for (const [key, label, limit, cmp, unit, digits] of GOALS) {
      const value = Number(median(runs[lang].map((r) => r[key])).toFixed(digits + 1));
      const name = `${key}-${lang}`;
      const before = previousValue(name);
      report.goal(name, { label: `${label}, ${lang}, median of ${RUNS}`, value, limit, cmp, unit, digits });
      rows.push([lang, label, show(value, unit, digits), `${cmp === '>=' ? '≥' : '≤'} ${limit}${unit ? ` ${unit}` : ''}`, show(before, unit, digits)]);
    }
    const lcpElements = [...new Set(runs[lang].map((r) => r.lcpElement).filter(Boolean))];
    report.note(`${lang}: the LCP element: ${lcpElements.map((e) => `\`${e}\``).join(', ') || 'none reported'}.`);
    const shifted = [...new Set(runs[lang].flatMap((r) => r.shifted))];
    if (shifted.length > 0) report.note(`${lang}: elements that shifted: ${shifted.map((e) => `\`${e}\``).join(', ')}.`);
    const notFull = [...new Set(runs[lang].flatMap((r) => r.belowFull))];
    if (notFull.length > 0) report.note(`${lang}: audits below full score in some run: ${notFull.join('; ')}.`);
  }
  const indexes = Object.values(runs).flat().map((r) => r.benchmarkIndex).filter((v) => v > 0);
  report.note(`The host: benchmarkIndex ${report.settings.hostBenchmarkIndex}, the median of ${HOST_READINGS} readings (${report.settings.hostReadings.join(', ')}), so every run at ${slowdown}× (4 × index / ${PHONE.hostIndex}); Lighthouse read ${Math.round(Math.min(...indexes))} to ${Math.round(Math.max(...indexes))} at the start of the runs.`);
  report.table(`Medians of ${RUNS} runs, beside the goals and the previous run${previous ? ` (${previous.date.slice(0, 10)})` : ''}`, ['language', 'figure', 'median', 'goal', 'previous run'], rows);

  console.log(`lighthouse: /25d/demo, mobile, simulated slow 4G and ${slowdown}× CPU (host index ${report.settings.hostBenchmarkIndex}), median of ${RUNS}`);
  for (const row of rows) console.log(`  ${row[0].padEnd(4)} ${row[1].padEnd(26)} ${row[2].padStart(9)}   goal ${row[3].padEnd(9)} previous ${row[4]}`);
});
