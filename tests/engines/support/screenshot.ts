/**
 * Screenshots from the engine lanes, beside the Chromium suite's (tests/artifacts/), for
 * a person to look at; no test compares them.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';

const DIR = fileURLToPath(new URL('../../artifacts/', import.meta.url));

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: `${DIR}${name.replace(/[^\w.-]+/g, '-')}.png` });
}
