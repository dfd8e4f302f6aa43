/**
 * Builds the capture pipeline harness (tests/engines/harness), never part of the product
 * build. Same base, worker format and build target as the app (vite.config.ts), so the
 * worklet, worker, model and wasm are bundled exactly as they ship (the model by the
 * same plugin as the app's).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { sileroModel } from '../../../scripts/sileroModel.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');

export default defineConfig({
  root: here,
  base: '/25d/',
  mode: 'production',
  plugins: [sileroModel()],
  define: {
    __APP_VERSION__: JSON.stringify('harness'),
    __APP_ENV__: JSON.stringify('local'),
  },
  worker: { format: 'es' },
  logLevel: 'warn',
  build: {
    outDir: join(repo, 'test-results', 'capture-harness'),
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      checks: { bundlerTimings: false },
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
