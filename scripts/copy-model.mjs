#!/usr/bin/env node
/**
 * Copies the Silero VAD legacy model from the pinned @ricky0123/vad-web package to
 * public/models/silero_vad_legacy.onnx, where the VAD worker fetches it (under the base
 * path). The bytes are checked against the sha256 recorded below, so a changed package
 * can never slip a different model into the build: a mismatch fails loudly.
 *
 * The onnxruntime-web wasm is NOT copied: src/workers/vad.client.ts imports it with
 * `?url`, so Vite emits it as a content-hashed asset (immutable caching, works offline,
 * no second copy in public/ to keep in sync). The runtime's JS glue is inside the bundled
 * `onnxruntime-web/wasm` entry the worker imports.
 *
 * Plain Node, no dependencies; idempotent (an identical target is left alone).
 * Usage: node scripts/copy-model.mjs [--out DIR] [--package DIR]   (--package: tests only)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@ricky0123/vad-web';
const PACKAGE_VERSION = '0.0.31';
const MODEL = 'silero_vad_legacy.onnx';
const MODEL_SHA256 = 'a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  process.stderr.write(`copy-model: ${message}\n`);
  process.exit(1);
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function parseArgs(argv) {
  const args = { outDir: join(root, 'public', 'models'), packageDir: join(root, 'node_modules', ...PACKAGE.split('/')) };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (argv[i] === '--out' && value) args.outDir = resolve(value);
    else if (argv[i] === '--package' && value) args.packageDir = resolve(value);
    else fail(`unknown argument ${argv[i]} (usage: copy-model.mjs [--out DIR] [--package DIR])`);
  }
  return args;
}

function main() {
  const { outDir, packageDir } = parseArgs(process.argv.slice(2));
  const packageJson = join(packageDir, 'package.json');
  if (!existsSync(packageJson)) fail(`${PACKAGE} is not installed (run npm ci)`);
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8'));
  if (version !== PACKAGE_VERSION) {
    fail(`${PACKAGE} is ${version}, expected the pinned ${PACKAGE_VERSION}; check the model, then update this script`);
  }
  const source = join(packageDir, 'dist', MODEL);
  if (!existsSync(source)) fail(`${source} is missing`);
  const bytes = readFileSync(source);
  const actual = sha256(bytes);
  if (actual !== MODEL_SHA256) fail(`${source}: sha256 ${actual}, expected ${MODEL_SHA256}`);

  const target = join(outDir, MODEL);
  if (existsSync(target) && sha256(readFileSync(target)) === MODEL_SHA256) {
    process.stdout.write(`copy-model: ${target} is up to date\n`);
    return;
  }
  mkdirSync(outDir, { recursive: true });
  // Write then rename, so a build running at the same time never reads half a model.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, target);
  process.stdout.write(`copy-model: copied ${MODEL} (${bytes.length} bytes, sha256 ok) to ${target}\n`);
}

main();
