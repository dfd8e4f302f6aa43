#!/usr/bin/env node
// Runs every check in order and prints one closing line `N passed, N failed`, summed over
// every runner: the type check and lint count as one check each, then every vitest test,
// every Playwright test (Chromium), and every test of the Firefox and WebKit lanes. Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, 'test-results', 'reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const bin = (name) => join(root, 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;
let skipped = 0;

function step(title, cmd, args, env = {}) {
  process.stdout.write(`\n=== ${title}\n`);
  const started = Date.now();
  const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const ok = result.status === 0;
  process.stdout.write(`=== ${title}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds}s\n`);
  return ok;
}

function count(ok) {
  if (ok) passed += 1;
  else failed += 1;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

count(step('type check', 'npm', ['run', '--silent', 'typecheck']));
count(step('lint', bin('eslint'), ['.', '--max-warnings=0']));
count(step('locales', process.execPath, ['scripts/check-locales.mjs']));

// Vitest: unit, component, saga and Node-level integration tests.
const vitestJson = join(reports, 'vitest.json');
const vitestOk = step('vitest', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
const vitest = readJson(vitestJson);
if (vitest) {
  passed += vitest.numPassedTests;
  failed += vitest.numFailedTests + vitest.numPendingTests + vitest.numTodoTests;
  // A suite that failed to load has no tests in the counts: count it as a failure.
  failed += (vitest.testResults ?? []).filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
  if (!vitestOk && vitest.numFailedTests === 0) failed += 1;
} else {
  failed += 1;
}

// Playwright end-to-end tests (and the engine lanes after them) run against the app built
// for the `local` environment.
const buildOk = step('build (local environment)', bin('vite'), ['build', '--mode', 'standin', '--logLevel', 'warn']);
if (!buildOk) {
  failed += 1;
} else {
  const playwrightJson = join(reports, 'playwright.json');
  const playwrightOk = step('playwright', bin('playwright'), ['test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson,
  });
  const pw = existsSync(playwrightJson) ? readJson(playwrightJson) : null;
  if (pw?.stats) {
    // Only a test that passed at its first and only run counts as passed. The config runs
    // no retries; should one ever be configured, a test that needed it (flaky) failed once
    // and counts as failed. A skipped test (test.skip, test.fixme) proves nothing: failed too.
    passed += pw.stats.expected;
    failed += pw.stats.unexpected + pw.stats.flaky + pw.stats.skipped;
    skipped += pw.stats.skipped;
    if (pw.stats.flaky) process.stdout.write(`\n${pw.stats.flaky} end-to-end test(s) passed only on a retry: counted as failed\n`);
    if (!playwrightOk && pw.stats.unexpected === 0) failed += 1;
  } else {
    failed += 1;
  }
}

// The engine lanes (tests/engines): the same app and stand-in in Firefox (and WebKit),
// driven over WebDriver; vitest runs them, one browser at a time.
if (buildOk) {
  const lanesJson = join(reports, 'engines.json');
  const lanesOk = step('engine lanes (Firefox, WebKit)', bin('vitest'), [
    'run',
    '--config',
    'tests/engines/vitest.config.ts',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${lanesJson}`,
  ]);
  const lanes = readJson(lanesJson);
  if (lanes) {
    passed += lanes.numPassedTests;
    failed += lanes.numFailedTests + lanes.numPendingTests + lanes.numTodoTests;
    skipped += lanes.numPendingTests;
    failed += (lanes.testResults ?? []).filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
    if (!lanesOk && lanes.numFailedTests === 0) failed += 1;
  } else {
    failed += 1;
  }
}

if (skipped) process.stdout.write(`\n${skipped} skipped end-to-end or lane test(s) counted as failed\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
