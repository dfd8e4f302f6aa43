/**
 * Builds the voice-pipeline bench page (bench/voice/page), never part of the product
 * build: `vite build --config bench/voice/vite.config.ts --outDir <tmp>`. Same base,
 * worker format and build target as the app (vite.config.ts), so our pipeline's worker,
 * worklet, model and wasm are bundled exactly as they ship. @ricky0123/vad-web loads its
 * worklet, model and onnxruntime files from a URL prefix at run time, so the served
 * copies of them are emitted under vad-web/.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { sileroModel } from '../../scripts/sileroModel.ts';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const vadWebDist = dirname(require.resolve('@ricky0123/vad-web/dist/index.js'));
const ortDist = dirname(require.resolve('onnxruntime-web/ort-wasm-simd-threaded.wasm'));

/** What MicVAD fetches from baseAssetPath and onnxWASMBasePath (both `vad-web/`). */
const VAD_WEB_FILES = [
  join(vadWebDist, 'vad.worklet.bundle.min.js'),
  join(vadWebDist, 'silero_vad_legacy.onnx'),
  join(ortDist, 'ort-wasm-simd-threaded.wasm'),
  join(ortDist, 'ort-wasm-simd-threaded.mjs'),
];

function emitVadWebAssets(): Plugin {
  return {
    name: 'bench-vad-web-assets',
    apply: 'build',
    generateBundle() {
      for (const file of VAD_WEB_FILES) {
        const fileName = `vad-web/${file.slice(file.lastIndexOf('/') + 1)}`;
        this.emitFile({ type: 'asset', fileName, source: readFileSync(file) });
      }
    },
  };
}

export default defineConfig({
  root: join(here, 'page'),
  base: '/25d/',
  mode: 'production',
  plugins: [sileroModel(), emitVadWebAssets()],
  define: {
    __APP_VERSION__: JSON.stringify('bench'),
    __APP_ENV__: JSON.stringify('local'),
  },
  worker: { format: 'es' },
  logLevel: 'warn',
  build: {
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    emptyOutDir: true,
    // onnxruntime's bundle alone is over the default warning size; that is expected here.
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      // Build timing notes and react-intl's "use client" (pulled in through the voice
      // saga's constants) are not problems of this page.
      checks: { bundlerTimings: false },
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
