/**
 * The avatar's sound under WebKit's autoplay rule (iOS Safari, every iPhone visitor): a
 * media element plays with sound only from within a user gesture, or once it has been
 * played in one. Chromium lets a later play() through after any tap (and the suite runs
 * it with autoplay allowed), so the rule is emulated in the page by the test harness
 * only (tests/e2e/support/pageShims.ts). The app itself is unchanged.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support/test.ts';
import { alertBox, endButton, expectLive, expectPreSession, openHome, startButton, text } from './support/app.ts';
import { installCounters } from './support/counters.ts';
import { snap } from './support/screenshots.ts';
import { avatarAudioPlayingInPage, emulateWebKitAutoplay as emulateWebKitAutoplayInPage } from './support/pageShims.ts';
import { clearEvents, events, startedRooms, stoppedRooms } from './support/standin.ts';

test.beforeEach(({ page }) => installCounters(page));

const emulateWebKitAutoplay = (page: Page) => page.addInitScript(emulateWebKitAutoplayInPage);
const avatarAudioPlaying = (page: Page) => page.evaluate(avatarAudioPlayingInPage);
const tapToPlay = (page: Page) => alertBox(page).getByRole('button', { name: text('en', 'notices.tapToPlay'), exact: true });
const ok = (page: Page) => alertBox(page).getByRole('button', { name: text('en', 'notices.ok'), exact: true });

/** Start chat pressed by script, not by the visitor: no user gesture, so nothing is unlocked. */
async function startWithoutGesture(page: Page): Promise<void> {
  await startButton(page).evaluate((button: HTMLButtonElement) => button.click());
}

test('the Start chat tap unlocks the avatar\'s sound: it plays seconds later without asking again', async ({ page }) => {
  await emulateWebKitAutoplay(page);
  await openHome(page);
  await startButton(page).click();
  await expectLive(page);
  await expect.poll(() => avatarAudioPlaying(page), { message: 'the avatar audio element plays its stream' }).toBe(true);
  const seen = await page.evaluate(() => window.__webkitAutoplay!);
  expect(seen.allowedInGesture, 'a play() ran inside the Start chat tap').toBeGreaterThan(0);
  expect(seen.refused, 'no play() with sound was refused').toBe(0);
  await expect(alertBox(page)).toHaveCount(0);
});

test.describe('sound held back by the browser (a start without a gesture)', () => {
  test('an alert says so; Tap to play plays the avatar with sound and the session goes live', async ({ page }) => {
    await emulateWebKitAutoplay(page);
    await openHome(page);
    await startWithoutGesture(page);
    await expect(alertBox(page)).toContainText(text('en', 'error.soundBlocked'), { timeout: 30_000 });
    expect(await page.evaluate(() => window.__webkitAutoplay!.refused)).toBeGreaterThan(0);
    await snap(page, 'sound-blocked-390x844');
    await tapToPlay(page).click();
    await expectLive(page);
    await expect.poll(() => avatarAudioPlaying(page)).toBe(true);
    await expect(alertBox(page)).toHaveCount(0);
  });

  test('OK ends the session and stops its room: the visitor is not left on a spinner', async ({ page, request }) => {
    await emulateWebKitAutoplay(page);
    await openHome(page);
    await clearEvents(request);
    await startWithoutGesture(page);
    await expect(alertBox(page)).toContainText(text('en', 'error.soundBlocked'), { timeout: 30_000 });
    await ok(page).click();
    await expectPreSession(page, 'en', 10_000);
    await expect(endButton(page)).toHaveCount(0);
    await expect(alertBox(page)).toHaveCount(0);
    await expect.poll(async () => stoppedRooms(await events(request))).toEqual(startedRooms(await events(request)));
    expect(startedRooms(await events(request))).toHaveLength(1);
  });
});
