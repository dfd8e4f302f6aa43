/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import pkg from './package.json' with { type: 'json' };
import { precompress } from './scripts/precompress.ts';
import { preloadApp } from './scripts/preloadApp.ts';
import { sileroModel } from './scripts/sileroModel.ts';

/**
 * Vite mode → environment (src/app/environments.ts). Vite reserves the mode name `local`
 * (it clashes with `.env.*.local` files), so the `local` environment is built with
 * `--mode standin`; `vite` (dev server, mode `development`) is local too.
 */
const ENVIRONMENT_OF_MODE: Record<string, string> = {
  standin: 'local',
  development: 'local',
  debug: 'debug',
  test: 'test',
  pre: 'pre',
  product: 'product',
};

/** The packages that the pre-session screen runs on (chunk `libs`). */
const FIRST_CHUNK_LIBRARIES =
  /[\\/]node_modules[\\/](react|react-dom|scheduler|react-redux|use-sync-external-store|redux|@reduxjs[\\/]toolkit|immer|reselect|redux-thunk|redux-saga|@redux-saga[\\/][\w-]+|typed-redux-saga|@babel[\\/]runtime|react-intl|@formatjs[\\/][\w-]+|intl-messageformat)[\\/]/;

/** The Node-level tests: the stand-in, the scripts, the integration and Node end-to-end tests. */
const SERVER_TESTS = ['server/**/*.test.ts', 'scripts/**/*.test.ts', 'tests/integration/**/*.test.ts', 'tests/e2e-node/**/*.test.ts'];
/** What both projects of them share: Node, and time for stand-ins, browsers and child processes to start. */
const NODE_TESTS = { environment: 'node', testTimeout: 30_000, hookTimeout: 60_000 } as const;
/** Those of them that must have the machine to themselves (project `server-alone`). */
const SERVER_TESTS_ALONE = ['tests/integration/abuse*.test.ts', 'server/speech/{stream,browser,sdk,recognizer}.test.ts'];

/** The app lives below /25d/ (the specification's URLs). */
const BASE = '/25d/';

export default defineConfig(({ mode }) => {
  const appEnv = ENVIRONMENT_OF_MODE[mode];
  if (!appEnv) {
    throw new Error(`Unknown mode "${mode}". Use one of: ${Object.keys(ENVIRONMENT_OF_MODE).join(', ')}`);
  }
  return {
    base: BASE,
    plugins: [react(), sileroModel(), preloadApp(['/src/app/libraries.ts', '/src/main.tsx'], BASE), precompress()],
    define: {
      __APP_VERSION__: JSON.stringify(pkg.version),
      __APP_ENV__: JSON.stringify(appEnv),
    },
    worker: { format: 'es' },
    // Pre-bundled up front so the dev server does not reload the page on the first call.
    optimizeDeps: { include: ['onnxruntime-web/wasm', 'comlink', 'microsoft-cognitiveservices-speech-sdk'] },
    build: {
      target: 'es2022',
      sourcemap: true,
      assetsInlineLimit: 0,
      rolldownOptions: {
        output: {
          // The first chunk's libraries in one chunk, evaluated in a task of their own before the
          // app's modules (src/app/libraries.ts); the Speech SDK, comlink and onnxruntime stay
          // in the chunks that need them.
          codeSplitting: { groups: [{ name: 'libs', test: FIRST_CHUNK_LIBRARIES }] },
        },
      },
    },
    server: {
      // `npm run dev` proxies every service path to a running stand-in (npm run serve).
      proxy: Object.fromEntries(
        ['/ue', '/get', '/start_live', '/stop_live', '/api', '/rtc', '/ws', '/speech', '/__standin', '/assets-standin', '/healthz'].map((p) => [
          p,
          { target: process.env.STANDIN_URL ?? 'http://127.0.0.1:8080', ws: true, changeOrigin: false },
        ]),
      ),
    },
    test: {
      projects: [
        {
          extends: true,
          test: {
            name: 'client',
            environment: 'jsdom',
            include: ['src/**/*.test.{ts,tsx}'],
            setupFiles: ['src/test/setup.ts'],
            // Component tests drive real user events; a loaded 2-core machine can make them slow.
            testTimeout: 20_000,
            // Bound by the CPU: one file per core (Vitest's default, one core less, is one file
            // at a time on 2 cores). Files share their worker's jsdom and modules instead of
            // making their own: 110 s became 22 s, all of it jsdom's start-up and the imports.
            // Each file leaves nothing behind (src/test/setup.ts), and none mocks a module, which
            // would reach only a file that ran first (src/test/specialAccount.ts); they pass in
            // any order (--sequence.shuffle.files).
            maxWorkers: '100%',
            pool: 'threads',
            isolate: false,
          },
        },
        {
          extends: true,
          test: {
            ...NODE_TESTS,
            name: 'server',
            include: SERVER_TESTS,
            exclude: SERVER_TESTS_ALONE,
            // Two files at a time, after the client files: most of these wait on sockets, timers
            // and child processes rather than the CPU (313 s one at a time, about 220 s two).
            maxWorkers: 2,
            sequence: { groupOrder: 1 },
          },
        },
        {
          extends: true,
          test: {
            ...NODE_TESTS,
            name: 'server-alone',
            include: SERVER_TESTS_ALONE,
            // One file at a time, last: these load the machine on purpose (floods of sockets,
            // peers and espeak-ng, one per core) or decode speech in real time, and a file beside
            // them starved the other of the CPU (a visitor's first video packet over 40 s late).
            maxWorkers: 1,
            sequence: { groupOrder: 2 },
          },
        },
      ],
    },
  };
});
