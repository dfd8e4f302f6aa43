/**
 * Builds the floor page of bench/call-cost.mjs (bench/call-cost/floor), never part of the
 * product build: `vite build --config bench/call-cost/vite.config.ts --outDir <dir>`. The
 * bench writes it into a folder of its own app build, so the stand-in serves it from the
 * app's origin (/25d/call-cost-floor/), with the app's headers and CSP. Same build target and
 * worker format as the app (vite.config.ts), so the capture worklet and the Speech SDK are
 * bundled as they ship; source maps, so its CPU profile is read by source file as the app's is.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: join(here, 'floor'),
  base: '/25d/call-cost-floor/',
  publicDir: false,
  mode: 'production',
  worker: { format: 'es' },
  logLevel: 'warn',
  build: {
    target: 'es2022',
    sourcemap: true,
    assetsInlineLimit: 0,
    emptyOutDir: true,
    // The Speech SDK alone is over the default warning size; that is expected here.
    chunkSizeWarningLimit: 4096,
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
