import { defineConfig } from 'vitest/config';

/**
 * The engine lanes: the real app and stand-in in Firefox (puppeteer-core over WebDriver
 * BiDi) and WebKit (WebKitWebDriver). One browser at a time: the stand-in's faults and
 * event log are shared, and the machine has 2 cores.
 */
export default defineConfig({
  test: {
    include: ['tests/engines/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['tests/engines/support/globalSetup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
