/**
 * Launches Debian's Firefox ESR under puppeteer-core over WebDriver BiDi, set up as a
 * phone-sized window against the stand-in. Playwright's own Firefox cannot be
 * downloaded here, and its `moz-firefox` channel fails at newContext against ESR
 * (`emulation.setMediaFeaturesOverride: unknown command`); puppeteer speaks plain BiDi.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** The prefs a phone's Firefox has in effect, or that this machine needs. */
const PREFS: Record<string, unknown> = {
  // The stand-in's ICE candidates are on 127.0.0.1.
  'media.peerconnection.ice.loopback': true,
  'media.peerconnection.ice.obfuscate_host_addresses': false,
  // The test microphone answers getUserMedia; no permission prompt to click.
  'media.navigator.permission.disabled': true,
  // Allowed to play sound without a gesture, as after the visitor's tap on a phone.
  'media.autoplay.default': 0,
  'media.autoplay.blocking_policy': 0,
  // Quiet: no update checks, no first-run pages.
  'app.update.disabledForTesting': true,
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
};

export async function launchFirefox(): Promise<Browser> {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    extraPrefsFirefox: PREFS,
    // PULSE_SERVER (the runner's null sink) reaches Firefox through the environment.
    env: { ...process.env },
    protocolTimeout: 60_000,
  });
}

/** A new page 390×844 (the suite's phone) that shows its console with ENGINE_CONSOLE=1. */
export async function phonePage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 390, height: 844 });
  if (process.env.ENGINE_CONSOLE) page.on('console', (m) => process.stdout.write(`[firefox ${m.type()}] ${m.text()}\n`));
  return page;
}
