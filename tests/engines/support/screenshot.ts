/**
 * What the engine lanes leave for a person to look at, beside the Chromium suite's
 * (tests/artifacts/): screenshots, which no test compares, and a failed test's session log.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';

const DIR = fileURLToPath(new URL('../../artifacts/', import.meta.url));

/** Where an artifact called `name` (any characters) with the ending `ending` goes; the folder is made. */
export function artifactPath(name: string, ending: string): string {
  mkdirSync(DIR, { recursive: true });
  return `${DIR}${name.replace(/[^\w.-]+/g, '-')}${ending}`;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: artifactPath(name, '.png') });
}
