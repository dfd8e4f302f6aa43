/**
 * What the browser benchmarks share: the repository root, a build of the app for
 * the local environment into a folder of the benchmark's own (its source maps must
 * not be replaced by another benchmark's build), the test suite's stand-in launcher,
 * Chromium's path and flags. Not a benchmark itself (run.mjs skips files named _*.mjs).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
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

/**
 * Builds the app as it was at git `ref` into `outDir`, for a benchmark's reference measured in
 * the same run: `git archive` into .cache/`name`-reference-src, this checkout's node_modules,
 * and the model also in public/models/, where builds before scripts/sileroModel.ts fetched it
 * (a newer build ignores it). BENCH_SKIP_BUILD=1 reuses an earlier build there.
 */
export function buildAppAt(ref, outDir, name) {
  if (process.env.BENCH_SKIP_BUILD === '1' && existsSync(join(outDir, 'index.html'))) return;
  const src = join(ROOT, '.cache', `${name}-reference-src`);
  rmSync(src, { recursive: true, force: true });
  mkdirSync(src, { recursive: true });
  const archive = spawnSync('sh', ['-c', `git -C "${ROOT}" archive ${ref} | tar -x -C "${src}"`], { stdio: 'inherit' });
  if (archive.status !== 0) throw new Error(`git archive ${ref} failed`);
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'));
  mkdirSync(join(src, 'public', 'models'), { recursive: true });
  cpSync(join(ROOT, 'node_modules', '@ricky0123', 'vad-web', 'dist', 'silero_vad_legacy.onnx'), join(src, 'public', 'models', 'silero_vad_legacy.onnx'));
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--mode', 'standin', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: src, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`vite build of ${ref} failed with code ${result.status}`);
}
