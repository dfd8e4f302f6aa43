/**
 * Screenshots for people to look at (tests/artifacts/, gitignored): the states
 * of the home screen per language. Animations are frozen so two runs of the
 * same state look alike.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

export const ARTIFACTS_DIR = fileURLToPath(new URL('../../artifacts/', import.meta.url));

/** Saves tests/artifacts/{name}.png and returns its path. */
export async function snap(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = `${ARTIFACTS_DIR}${name}.png`;
  // CSS pixels (390×844): a third of the device pixels to encode, so a shot of the connecting
  // state fits well inside the 15 s start deadline even on a loaded machine.
  await page.screenshot({ path, animations: 'disabled', caret: 'hide', scale: 'css' });
  return path;
}
