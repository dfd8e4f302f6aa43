/**
 * A Playwright `test` whose page runs in a browser launched for that test, with the
 * fake microphone playing a chosen file. Playwright refuses `launchOptions` inside a
 * describe group (it would force a new worker), so each voice test launches its own
 * Chromium with the project's arguments plus `--use-file-for-fake-audio-capture`.
 * The context gets the project's device settings (viewport, touch, locale, base URL).
 *
 * Options, settable per describe with test.use():
 * - micFile: the WAV the microphone plays (null: Chromium's default beep);
 * - micPrompt: 'allow' (fake permission UI, as in the config) or 'deny' (no fake UI,
 *   and the microphone permission denied for the app's origin).
 */
import { chromium, type Page } from '@playwright/test';
import { test as base } from './test.ts';
import { CHROMIUM_ARGS } from '../../../playwright.config.ts';

const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FAKE_UI = '--use-fake-ui-for-media-stream';

export interface VoiceOptions {
  micFile: string | null;
  micPrompt: 'allow' | 'deny';
}

export const test = base.extend<VoiceOptions & { page: Page }>({
  micFile: [null, { option: true }],
  micPrompt: ['allow', { option: true }],
  page: async ({ micFile, micPrompt, baseURL, viewport, isMobile, hasTouch, userAgent, deviceScaleFactor, locale }, use) => {
    const args = CHROMIUM_ARGS.filter((arg) => micPrompt === 'allow' || arg !== FAKE_UI);
    if (micFile) args.push(`--use-file-for-fake-audio-capture=${micFile}`);
    const browser = await chromium.launch({ executablePath: EXECUTABLE, args });
    try {
      const context = await browser.newContext({
        baseURL,
        viewport,
        isMobile,
        hasTouch,
        deviceScaleFactor,
        locale,
        ...(userAgent ? { userAgent } : {}),
      });
      const page = await context.newPage();
      // VOICE_E2E_CONSOLE=1 shows the page's console, for diagnosing a failing voice test.
      if (process.env.VOICE_E2E_CONSOLE) page.on('console', (m) => process.stdout.write(`${new Date().toISOString().slice(11, 23)} [page ${m.type()}] ${m.text()}\n`));
      if (micPrompt === 'deny' && baseURL) {
        const cdp = await context.newCDPSession(page);
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        await cdp.send('Browser.setPermission', {
          permission: { name: 'microphone' },
          setting: 'denied',
          origin: new URL(baseURL).origin,
          ...(targetInfo.browserContextId ? { browserContextId: targetInfo.browserContextId } : {}),
        });
        await cdp.detach();
      }
      await use(page);
      await context.close();
    } finally {
      await browser.close();
    }
  },
});

export { expect } from './test.ts';
