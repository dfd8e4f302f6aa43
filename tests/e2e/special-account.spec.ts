/**
 * The special account end to end (docs/requirements.md R5; docs/contract.md C9: `gov` is
 * the special account of the `local` environment): the AI-summary notice and the
 * digital-host label, in zh and in en, before and during a session; its background video,
 * and the demo account's background image, painted behind the avatar (docs/requirements.md R17).
 * Also here: where a toast sits on the 390×844 screen (docs/requirements.md R114: middle position).
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/test.ts';
import { avatarVideo, LIVE_TIMEOUT_MS, openHome, presetLang, startAndWaitLive, text, toast, type Lang } from './support/app.ts';
import { installCounters } from './support/counters.ts';

test.beforeEach(({ page }) => installCounters(page));

/** The greeting comes once the avatar plays and the speech side is ready: a reply may take a while here. */
const REPLY_MS = 45_000;

const aiSummaryTip = (page: Page, lang: Lang) => page.getByText(text(lang, 'account.aiSummaryTip'), { exact: true });
const digitalHost = (page: Page, lang: Lang) => page.getByText(text(lang, 'account.digitalHost'), { exact: true });
const chatLog = (page: Page) => page.getByRole('log');

/**
 * Checks, in the browser, that `background` is drawn full screen and under the avatar video:
 * at the middle of the screen the avatar video is hit before the background element, which is
 * hit at all (nothing opaque of the page's own sits between them at that point).
 */
async function expectBehindAvatar(page: Page, background: Locator): Promise<void> {
  const viewport = page.viewportSize()!;
  const box = (await background.boundingBox())!;
  for (const [got, want] of [
    [box.x, 0],
    [box.y, 0],
    [box.width, viewport.width],
    [box.height, viewport.height],
  ] as const) {
    expect(Math.abs(got - want), `background box ${JSON.stringify(box)} covers the screen`).toBeLessThanOrEqual(1);
  }
  const order = await page.evaluate(() => {
    const stack = document.elementsFromPoint(window.innerWidth / 2, window.innerHeight / 2);
    const avatar = document.querySelector('.avatar-video video');
    const bg = document.querySelector('.stage-bg img, .stage-bg video');
    return { avatar: avatar ? stack.indexOf(avatar) : -1, background: bg ? stack.indexOf(bg) : -1 };
  });
  expect(order.avatar, 'the avatar video is at the middle of the screen').toBeGreaterThanOrEqual(0);
  expect(order.background, 'the background is at the middle of the screen').toBeGreaterThanOrEqual(0);
  expect(order.background, 'the background is under the avatar video').toBeGreaterThan(order.avatar);
}

for (const lang of ['zh', 'en'] as const) {
  test(`gov (${lang}): the AI-summary notice and the digital-host label, before and during a session`, async ({ page }) => {
    await presetLang(page, lang);
    await openHome(page, { id: 'gov', lang });

    // Before the session: the label next to the title and the tip under Start chat, once each
    // (the account's own label "Digital host" is not repeated next to the badge).
    await expect(digitalHost(page, lang)).toHaveCount(1);
    await expect(digitalHost(page, lang)).toBeVisible();
    await expect(aiSummaryTip(page, lang)).toHaveCount(1);
    await expect(aiSummaryTip(page, lang)).toBeVisible();

    await startAndWaitLive(page, lang);
    // Live: the label under the title in the header, and the tip with every AI reply.
    await expect(digitalHost(page, lang)).toHaveCount(1);
    await expect(digitalHost(page, lang)).toBeVisible();
    const reply = chatLog(page).locator('.msg--ai').first();
    await expect(reply).toBeVisible({ timeout: REPLY_MS });
    await expect(reply.getByText(text(lang, 'chat.aiNote'), { exact: true })).toBeVisible({ timeout: REPLY_MS });
    await expect(reply.getByText(text(lang, 'account.aiSummaryTip'), { exact: true })).toBeVisible();
  });
}

test('gov: its background is a .webm video that plays behind the avatar', async ({ page }) => {
  await presetLang(page, 'en');
  await openHome(page, { id: 'gov' });
  await startAndWaitLive(page);
  const background = page.locator('.stage-bg video');
  await expect(background).toHaveCount(1);
  expect(new URL((await background.getAttribute('src'))!).pathname).toMatch(/\.webm$/);
  // A frame of it is decoded and shown: HAVE_CURRENT_DATA or better.
  await expect.poll(() => background.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: LIVE_TIMEOUT_MS }).toBeGreaterThanOrEqual(2);
  await expect.poll(() => background.evaluate((v: HTMLVideoElement) => v.getVideoPlaybackQuality().totalVideoFrames)).toBeGreaterThan(0);
  await expect(avatarVideo(page)).toBeVisible();
  await expectBehindAvatar(page, background);
});

test('another account (demo): neither the notice nor the label; its background image is behind the avatar', async ({ page }) => {
  await presetLang(page, 'en');
  await openHome(page, { id: 'demo' });
  await expect(aiSummaryTip(page, 'en')).toHaveCount(0);
  await expect(digitalHost(page, 'en')).toHaveCount(0);

  await startAndWaitLive(page);
  await expect(digitalHost(page, 'en')).toHaveCount(0);
  const reply = chatLog(page).locator('.msg--ai').first();
  await expect(reply.getByText(text('en', 'chat.aiNote'), { exact: true })).toBeVisible({ timeout: REPLY_MS });
  await expect(aiSummaryTip(page, 'en')).toHaveCount(0);

  const background = page.locator('.stage-bg img');
  await expect(background).toHaveCount(1);
  await expect.poll(() => background.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(page.locator('.stage-bg video')).toHaveCount(0);
  await expectBehindAvatar(page, background);
});

test('a toast sits in the middle of the 390×844 screen', async ({ page }) => {
  expect(page.viewportSize()).toEqual({ width: 390, height: 844 });
  await presetLang(page, 'en');
  // An account that is not valid: the invalid-user toast, on an otherwise empty page.
  await page.goto('/25d/nobody');
  const shown = toast(page, text('en', 'error.invalidUser'));
  await expect(shown).toBeVisible();
  // Measured once its entrance animation (a small slide and scale) has finished.
  await shown.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)));
  const box = (await shown.boundingBox())!;
  expect(Math.abs(box.x + box.width / 2 - 195), `horizontal centre ${box.x + box.width / 2}`).toBeLessThanOrEqual(1);
  expect(Math.abs(box.y + box.height / 2 - 422), `vertical centre ${box.y + box.height / 2}`).toBeLessThanOrEqual(1);
  // A toast, not a banner: it leaves room on both sides.
  expect(box.width).toBeLessThan(390);
});
