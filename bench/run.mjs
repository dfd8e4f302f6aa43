/**
 * `npm run bench`: runs every benchmark in bench/ (every *.mjs but this file and
 * helpers named _*.mjs), one after the other (they share 2 cores and would
 * disturb each other's timings), each in its own Node process. Exits non-zero
 * when any benchmark failed its budget or crashed.
 *
 *   npm run bench                       every benchmark
 *   npm run bench -- start-latency      only those whose file name contains an argument
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && !f.startsWith('_'))
  .filter((f) => only.length === 0 || only.some((word) => f.includes(word)))
  .sort();
if (benches.length === 0) {
  console.error(`no benchmark in bench/ matches ${only.join(', ')}`);
  process.exit(1);
}

const results = [];
for (const file of benches) {
  console.log(`\n=== ${file}`);
  const started = Date.now();
  const { status, signal } = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' });
  results.push({ file, ok: status === 0, detail: signal ?? `exit ${status}`, seconds: Math.round((Date.now() - started) / 1000) });
}

console.log('\n=== benchmarks');
for (const r of results) console.log(`  ${r.ok ? 'PASS' : 'FAIL'}  ${r.file} (${r.seconds} s${r.ok ? '' : `, ${r.detail}`})`);
const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
