/**
 * Playwright's clock in the page, for the tests of a start's time limits (the 15 s start
 * limit, the 10 s wait for the live chunk): installed before the page loads and running as
 * usual, held once the test has seen the start stall, then run forward by hand instead of
 * waiting the limit out in real time. While it is held no timer of the page fires by itself
 * (setTimeout, AbortSignal.timeout, Date and performance.now all follow it), so a check at
 * a time just before the limit and one just after it tell the limit to the half second.
 * What the browser does on its own time (requests, ICE) goes on as usual.
 */
import { expect, type Page } from '@playwright/test';

type Marked = { __tappedAt?: number };

/** Installs the clock before the page loads and marks the first tap on the page (Start chat) by it. */
export async function installStartClock(page: Page): Promise<void> {
  await page.clock.install();
  await page.addInitScript(() => {
    document.addEventListener('click', () => ((window as unknown as Marked).__tappedAt ??= performance.now()), true);
  });
}

/** The page's time since the tap. */
export function sinceTap(page: Page): Promise<number> {
  return page.evaluate(() => performance.now() - (window as unknown as Marked).__tappedAt!);
}

/**
 * Holds the page's clock once the start is known to be stalled, and checks that this came
 * before `limitMs` drew near (1 s before it), so that the time up to the limit is still to run.
 */
export async function holdClock(page: Page, limitMs: number): Promise<void> {
  // pauseAt takes a time still to come; on a loaded machine the call can reach the page after
  // that time (an error, with the clock already held): then it is asked again a little later.
  for (let ahead = 250; ; ahead *= 2) {
    try {
      await page.clock.pauseAt(Date.now() + ahead);
      break;
    } catch (error) {
      if (ahead >= 8_000 || !String(error).includes('Cannot fast-forward to the past')) throw error;
    }
  }
  expect(await sinceTap(page), 'the stall was seen before the limit drew near').toBeLessThan(limitMs - 1_000);
}

/** Runs the held clock to `ms` after the tap, half a second at a time, so that the requests its timers send are answered between steps. */
export async function runClockTo(page: Page, ms: number): Promise<void> {
  for (let left = ms - (await sinceTap(page)); left > 0; left = ms - (await sinceTap(page))) {
    await page.clock.runFor(Math.min(500, Math.ceil(left)));
  }
}
