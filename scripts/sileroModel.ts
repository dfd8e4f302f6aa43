/**
 * A Vite plugin that makes the Silero VAD model part of every build: `import modelUrl from
 * 'virtual:silero-vad-model'` gives the URL of `silero_vad_legacy.onnx` taken from the
 * pinned `@ricky0123/vad-web` package, which Vite then emits as a content-hashed asset
 * (immutable caching, nothing to copy by hand, so `npm run build` on a fresh clone holds
 * it). The package's version and the model's sha256 are checked when the module is loaded:
 * a changed package can never slip a different model into a build; it fails it instead.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'vite';

export const MODEL_PACKAGE = '@ricky0123/vad-web';
export const MODEL_PACKAGE_VERSION = '0.0.31';
export const MODEL_FILE = 'silero_vad_legacy.onnx';
export const MODEL_SHA256 = 'a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28';

const VIRTUAL_ID = 'virtual:silero-vad-model';
const RESOLVED_ID = `\0${VIRTUAL_ID}`;

/** The model's path in the package, after checking both; throws a message that says what to do. */
export function checkedModelPath(packageDir: string): string {
  const packageJson = join(packageDir, 'package.json');
  if (!existsSync(packageJson)) throw new Error(`${MODEL_PACKAGE} is not installed (run npm ci)`);
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string };
  if (version !== MODEL_PACKAGE_VERSION) {
    throw new Error(`${MODEL_PACKAGE} is ${version}, expected the pinned ${MODEL_PACKAGE_VERSION}: check the model, then update scripts/sileroModel.ts`);
  }
  const model = join(packageDir, 'dist', MODEL_FILE);
  if (!existsSync(model)) throw new Error(`${model} is missing`);
  const actual = createHash('sha256').update(readFileSync(model)).digest('hex');
  if (actual !== MODEL_SHA256) throw new Error(`${model}: sha256 ${actual}, expected ${MODEL_SHA256}`);
  return model;
}

function installedPackageDir(root: string): string {
  const require = createRequire(join(root, 'package.json'));
  return dirname(dirname(require.resolve(`${MODEL_PACKAGE}/dist/index.js`)));
}

/** `packageDir`: tests only (a tampered copy); by default the installed package. */
export function sileroModel(opts: { packageDir?: string } = {}): Plugin {
  let root = process.cwd();
  return {
    name: 'silero-vad-model',
    configResolved(config) {
      root = config.root;
    },
    resolveId(id) {
      return id === VIRTUAL_ID ? RESOLVED_ID : null;
    },
    load(id) {
      if (id !== RESOLVED_ID) return null;
      const model = checkedModelPath(opts.packageDir ?? installedPackageDir(root));
      // `?url` hands the file to Vite's asset pipeline: hashed name, emitted in every build.
      return `export { default } from ${JSON.stringify(`${model}?url`)};`;
    },
  };
}
