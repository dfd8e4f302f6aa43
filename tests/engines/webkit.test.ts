/**
 * The WebKit lane: the real app against the real stand-in in WebKitGTK's MiniBrowser,
 * driven by WebKitWebDriver under a virtual X server. Debian builds WebKitGTK without
 * WebRTC (RTCPeerConnection is undefined), so this lane covers what such a WebKit runs:
 * the start screen and language dialog, the invalid-account toast, the unsupported-browser
 * alert at Start chat, and the capture pipeline (the part of a hands-free call iPhones run
 * in WebKit) on a harness page, compared with Chromium's run of the same page and file.
 * No screenshots: a WebDriver screenshot in WebKitGTK waits for a painted frame and can
 * hang on a still page.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser as ChromiumBrowser } from '@playwright/test';
import { By, type WebDriver, type WebElement } from 'selenium-webdriver';
import { build } from 'vite';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, test } from 'vitest';
import { LANGUAGES, languageOf } from '../../lang/languages.ts';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { serveStatic } from '../../bench/voice/serve.mjs';
import { clearEvents, clearFaults, events, fetchRequester, httpIn } from '../e2e/support/standin.ts';
import { installTestMicrophone, testMicrophoneArgs, type TestMicrophoneArgs } from '../support/testMicrophone.ts';
import type { HarnessRun } from './harness/main.ts';
import { findControl, MIC_FILES, waitFor } from './support/page.ts';
import { startWebKitDriver, webkitSession, type WebKitDriver } from './support/webkit.ts';

const origin = inject('standinUrl');
const request = fetchRequester(origin);

type Lang = 'en' | 'cht';
const texts = (lang: Lang) => JSON.parse(readFileSync(new URL(`../../lang/${lang}.json`, import.meta.url), 'utf8')) as Record<string, string>;
const LANG_NAMES = LANGUAGES.map((language) => language.name);

let driver: WebKitDriver;
let session: WebDriver;

beforeAll(async () => {
  driver = await startWebKitDriver();
  session = await webkitSession(driver);
});

afterAll(async () => {
  await session?.quit().catch(() => undefined);
  await driver?.stop();
});

beforeEach(async () => {
  await clearFaults(request);
});

/** Opens /25d/{id} with `lang` stored, as a returning visitor would. */
async function open(id: string, lang: Lang): Promise<void> {
  await session.get(`${origin}/25d/${id}`);
  await session.executeScript((value: string) => window.localStorage.setItem('lang', value), lang);
  await session.navigate().refresh();
}

/** The enabled control with that role and accessible name (see findControl), once shown. */
async function control(role: string, name: string, timeout = 15_000): Promise<WebElement> {
  // A script string, not new Function in the page: the app's CSP forbids eval.
  const script = `const element = (${findControl.toString()})(arguments[0], arguments[1]);
    return element && !element.disabled ? element : null;`;
  const found = await waitFor(
    () => session.executeScript<WebElement | null>(script, role, name),
    (element) => element !== null,
    `an enabled ${role} "${name}"`,
    timeout,
  );
  return found!;
}

/**
 * Taps the control once it can take a tap: WebDriver refuses a click on an element that is
 * still animating in (a dialog's buttons), so a refused click is tried again, as
 * Playwright's actionability checks would wait.
 */
async function tap(role: string, name: string, timeout = 15_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      await (await control(role, name, timeout)).click();
      return;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ElementNotInteractableError' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const bodyText = () => session.executeScript<string>(() => document.body.innerText);

test('the RTCPeerConnection this lane lacks: Debian builds WebKitGTK without WebRTC (if this fails, WebKit has WebRTC here and the lane should run sessions)', async () => {
  await session.get(`${origin}/25d/demo`);
  expect(await session.executeScript(() => typeof RTCPeerConnection)).toBe('undefined');
  expect(await session.executeScript(() => typeof AudioWorkletNode)).toBe('function');
});

for (const lang of ['en', 'cht'] as const) {
  test(`the start screen in ${lang}: the account's name, Start chat and the language button`, async () => {
    const t = texts(lang);
    await open('demo', lang);
    await control('button', t['session.startChat']!);
    await control('button', t['locale.language']!);
    const shown = await bodyText();
    expect(shown).toContain('Ava · Shopping Assistant');
    expect(shown).toContain(t['session.startChat']);
    expect(await session.executeScript(() => document.documentElement.lang)).toBe(languageOf(lang).intl);
  });
}

test('the Language dialog lists the five languages with English checked, and Cancel keeps it', async () => {
  await open('demo', 'en');
  await tap('button', 'Language');
  const dialog = await session.findElement(By.css('[role="dialog"]'));
  const radios = await dialog.findElements(By.css('[role="radio"], input[type="radio"]'));
  expect(radios).toHaveLength(LANGUAGES.length);
  const names = await session.executeScript<string[]>(() =>
    Array.from(document.querySelectorAll('[role="dialog"] [role="radio"], [role="dialog"] input[type="radio"]')).map(
      (r) => r.getAttribute('aria-label') ?? r.closest('label')?.textContent?.trim() ?? r.textContent?.trim() ?? '',
    ),
  );
  expect(names.map((n) => n.trim()).sort()).toEqual([...LANG_NAMES].sort());
  const checked = await session.executeScript<string[]>(() =>
    Array.from(document.querySelectorAll('[role="dialog"] [aria-checked="true"], [role="dialog"] input[type="radio"]:checked')).map(
      (r) => r.getAttribute('aria-label') ?? r.closest('label')?.textContent?.trim() ?? r.textContent?.trim() ?? '',
    ),
  );
  expect(checked).toEqual(['English']);
  await tap('button', 'Cancel');
  await waitFor(() => session.executeScript<number>(() => document.querySelectorAll('[role="dialog"]').length), (n) => n === 0, 'the dialog closed');
  expect(await session.executeScript(() => window.localStorage.getItem('lang'))).toBe('en');
});

test('an invalid account: the toast "Invalid user!!!" and no content', async () => {
  await open('nobody', 'en');
  await waitFor(bodyText, (shown) => shown.includes(texts('en')['error.invalidUser']!), 'the invalid-user toast');
  expect(await session.executeScript(() => document.querySelectorAll('.app button, .app img, .app h1').length)).toBe(0);
});

test('Start chat in a browser without WebRTC: the unsupported-browser alert, and nothing requested after it', async () => {
  await open('demo', 'en');
  await control('button', 'Start chat');
  await clearEvents(request);
  await tap('button', 'Start chat');
  const message = texts('en')['error.webrtcUnsupported']!;
  await waitFor(
    () => session.executeScript<string>(() => Array.from(document.querySelectorAll('[role="alert"], [role="alertdialog"]')).map((a) => a.textContent).join(' ')),
    (shown) => shown.includes(message),
    'the unsupported-browser alert',
  );
  // Give a request that should not happen the time to happen.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const seen = await events(request);
  expect(httpIn(seen, '/get/route')).toEqual([]);
  expect(httpIn(seen, '/start_live')).toEqual([]);
  expect(seen.filter((e) => e.channel === 'signaling' || e.channel === 'whep')).toEqual([]);
});

describe('the capture pipeline (AudioWorklet → MessagePort → VAD worker with onnxruntime-web and Silero)', () => {
  let harness: { url: string; close(): Promise<void> };
  let chromiumBrowser: ChromiumBrowser;
  const mic: TestMicrophoneArgs = testMicrophoneArgs(MIC_FILES, { file: 'twoQuestions', loop: false, leadSeconds: 1 });
  // The file (9.7 s) after its lead, and time for the last segment's end.
  const RUN_MS = 13_000;

  beforeAll(async () => {
    await build({ configFile: new URL('./harness/vite.config.ts', import.meta.url).pathname, logLevel: 'warn' });
    harness = await serveStatic(new URL('../../test-results/capture-harness', import.meta.url).pathname, '/25d/');
    chromiumBrowser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await chromiumBrowser?.close();
    await harness?.close();
  });

  async function inWebKit(): Promise<HarnessRun> {
    await session.get(harness.url);
    await waitFor(
      () => session.executeScript<string | undefined>(() => document.body.dataset.ready ?? document.body.dataset.error),
      (ready) => ready !== undefined && ready !== null,
      'the harness page',
    );
    expect(await session.executeScript(() => document.body.dataset.error ?? null)).toBeNull();
    await session.executeScript(`(${installTestMicrophone.toString()})(arguments[0]);`, mic);
    await session.executeScript((ms: number) => Object.assign(document.querySelector('button')!.dataset, { ms: String(ms), file: 'twoQuestions' }), RUN_MS);
    await tap('button', 'Run');
    return (await waitFor(() => session.executeScript<HarnessRun | null>(() => window.captureHarness!.result ?? null), (run) => run !== null, 'the harness run', RUN_MS + 30_000))!;
  }

  async function inChromium(): Promise<HarnessRun> {
    const page = await chromiumBrowser.newPage();
    try {
      await page.addInitScript(installTestMicrophone, mic);
      await page.goto(harness.url);
      await page.waitForSelector('body[data-ready="true"]');
      await page.evaluate((ms) => Object.assign(document.querySelector('button')!.dataset, { ms: String(ms), file: 'twoQuestions' }), RUN_MS);
      await page.getByRole('button', { name: 'Run' }).click();
      await page.waitForFunction(() => window.captureHarness!.result !== undefined, undefined, { timeout: RUN_MS + 30_000 });
      return await page.evaluate(() => window.captureHarness!.result!);
    } finally {
      await page.close();
    }
  }

  test('WebKit finds the same speech segments as Chromium in the same file, within ±1 frame', { timeout: 180_000 }, async () => {
    const webkit = await inWebKit();
    const chrome = await inChromium();
    const summary = JSON.stringify({ webkit, chromium: chrome });
    if (process.env.ENGINE_CONSOLE) console.log(summary);
    expect(webkit.errors, summary).toEqual([]);
    expect(chrome.errors, summary).toEqual([]);
    // The file holds two questions 2 s apart: two sentences, whatever the engine.
    expect(chrome.segments, summary).toHaveLength(2);
    expect(webkit.segments, summary).toHaveLength(2);
    // The recognizer's feed ran too: PCM reached the main thread all along (96 ms chunks).
    expect(webkit.pcmChunks, summary).toBeGreaterThan(80);
    // The harness starts the file on the worklet's first frame in both engines (see
    // harness/main.ts), so boundaries compare as they are. Within one frame: each engine
    // decodes and resamples the 16 kHz file to its context's rate its own way.
    const boundaries = (run: HarnessRun) => run.segments.flatMap((s) => [s.start, s.end]);
    const a = boundaries(webkit);
    const b = boundaries(chrome);
    for (let i = 0; i < a.length; i += 1) expect(Math.abs(a[i]! - b[i]!), `boundary ${i}: ${summary}`).toBeLessThanOrEqual(1);
  });
});
