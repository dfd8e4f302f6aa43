import { defineConfig, devices } from '@playwright/test';

/**
 * End-to-end tests: the real app (built for `local`), the real stand-in, headless Debian
 * Chromium with fake media devices. globalSetup starts one stand-in on a free port and
 * exports its URL as STANDIN_URL, which the workers read as their baseURL.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--autoplay-policy=no-user-gesture-required',
];

/**
 * Playwright takes this screenshot of every page as its context closes and keeps it only
 * when the test failed. At the iPhone's 3x scale (a 1170x2532 PNG, software-rendered) that
 * cost 2-3 s per test on a loaded 2-core machine; at CSS scale (390x844) 0.2 s. Playwright
 * hands these options to page.screenshot; its type names only fullPage and omitBackground,
 * hence the constant rather than an object literal in the config.
 */
const FAILURE_SCREENSHOT = { mode: 'only-on-failure' as const, scale: 'css' as const };

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/e2e',
  globalSetup: './tests/e2e/support/globalSetup.ts',
  fullyParallel: false,
  // Faults are global to the one stand-in, so tests run one at a time; the machine has 2 cores.
  workers: 1,
  // A test that fails once has failed: no retry, which would hide it by passing.
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    ...devices['iPhone 12'],
    browserName: 'chromium',
    defaultBrowserType: 'chromium',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    baseURL: process.env.STANDIN_URL,
    locale: 'en-US',
    trace: 'retain-on-failure',
    screenshot: FAILURE_SCREENSHOT,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      // Playwright mutes headless Chromium by default; a phone plays the avatar into its speaker.
      ignoreDefaultArgs: ['--mute-audio'],
    },
  },
});
