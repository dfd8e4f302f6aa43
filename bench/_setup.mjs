/**
 * What the browser benchmarks share: the repository root, a build of the app for
 * the local environment into a folder of the benchmark's own (its source maps must
 * not be replaced by another benchmark's build), the test suite's stand-in launcher,
 * Chromium's path and flags. Not a benchmark itself (run.mjs skips files named _*.mjs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const { startStandin } = await tsImport('../tests/support/standin.ts', import.meta.url);
export const { CHROMIUM_ARGS } = await tsImport('../playwright.config.ts', import.meta.url);
/** Debian's Chromium, as the test suite uses; CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Builds the app into `outDir` (BENCH_SKIP_BUILD=1 reuses the last build there). */
export function buildApp(outDir) {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'build', '--mode', 'standin', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'];
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`vite build failed with code ${result.status}`);
}
