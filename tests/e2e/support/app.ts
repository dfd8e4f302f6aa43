/**
 * Driving the home screen by its accessible names (docs/contract.md C17) and
 * reading the avatar's media from the page. Texts per language come from the
 * same lang/*.json files the app ships, so a test names exactly what the
 * visitor reads.
 */
import { readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';
import type { Lang } from '../../../lang/languages.ts';

export { LANGUAGES, type Lang } from '../../../lang/languages.ts';

const cache = new Map<Lang, Record<string, string>>();

/** The shipped text of message `id` in `lang`. */
export function text(lang: Lang, id: string): string {
  let messages = cache.get(lang);
  if (!messages) {
    messages = JSON.parse(readFileSync(new URL(`../../../lang/${lang}.json`, import.meta.url), 'utf8')) as Record<string, string>;
    cache.set(lang, messages);
  }
  const found = messages[id];
  if (found === undefined) throw new Error(`no message ${id} in lang/${lang}.json`);
  return found;
}

/** How long a start may take on the shared machine (the client's own limit is 15 s). */
export const LIVE_TIMEOUT_MS = 30_000;

/** Stores `lang` before every load of this page (docs/contract.md C19). */
export async function presetLang(page: Page, lang: Lang): Promise<void> {
  await page.addInitScript((value) => window.localStorage.setItem('lang', value), lang);
}

export const startButton = (page: Page, lang: Lang = 'en') => page.getByRole('button', { name: text(lang, 'session.startChat'), exact: true });
export const cancelButton = (page: Page, lang: Lang = 'en') => page.getByRole('button', { name: text(lang, 'session.cancel'), exact: true });
export const endButton = (page: Page, lang: Lang = 'en') => page.getByRole('button', { name: text(lang, 'session.endChat'), exact: true });
export const avatarVideo = (page: Page, lang: Lang = 'en') => page.getByLabel(text(lang, 'session.avatarVideo'), { exact: true });
export const toast = (page: Page, message: string) => page.getByRole('status').filter({ hasText: message });
export const alertBox = (page: Page) => page.getByRole('alert');

/** Opens account `id` and waits for the pre-session screen. */
export async function openHome(page: Page, opts: { id?: string; lang?: Lang } = {}): Promise<void> {
  await page.goto(`/25d/${opts.id ?? 'demo'}`);
  await expect(startButton(page, opts.lang)).toBeEnabled();
}

/** Taps Start chat and waits until the avatar plays: End chat enabled and decoded frames. */
export async function startAndWaitLive(page: Page, lang: Lang = 'en'): Promise<void> {
  await startButton(page, lang).click();
  await expectLive(page, lang);
}

export async function expectLive(page: Page, lang: Lang = 'en'): Promise<void> {
  await expect(endButton(page, lang)).toBeEnabled({ timeout: LIVE_TIMEOUT_MS });
  await expect(avatarVideo(page, lang)).toBeVisible();
  await expect.poll(() => decodedFrames(page), { timeout: LIVE_TIMEOUT_MS }).toBeGreaterThan(0);
}

/**
 * Taps Cancel as a visitor who means it: a tap within 300 ms of Start chat is the
 * second tap of a double tap and only says "please wait" (PreSession.tsx).
 */
export async function cancelDeliberately(page: Page, tappedAt: number, lang: Lang = 'en'): Promise<void> {
  await page.waitForTimeout(Math.max(0, 400 - (Date.now() - tappedAt)));
  await cancelButton(page, lang).click();
}

/** Back to state 1: Start chat enabled, no Cancel, no live screen. */
export async function expectPreSession(page: Page, lang: Lang = 'en', timeout = LIVE_TIMEOUT_MS): Promise<void> {
  await expect(startButton(page, lang)).toBeEnabled({ timeout });
  await expect(cancelButton(page, lang)).toHaveCount(0);
  await expect(endButton(page, lang)).toHaveCount(0);
  await expect(avatarVideo(page, lang)).toHaveCount(0);
}

/** Ends a live session with End chat and waits for the pre-session screen. */
export async function endChat(page: Page, lang: Lang = 'en'): Promise<void> {
  await endButton(page, lang).click();
  await expectPreSession(page, lang);
}

/** Frames the avatar <video> has decoded so far (0 when there is none). */
export async function decodedFrames(page: Page): Promise<number> {
  return page.evaluate(() => {
    const video = document.querySelector<HTMLVideoElement>('.avatar-video video');
    return video ? video.getVideoPlaybackQuality().totalVideoFrames : 0;
  });
}

/** Whether the avatar video is playing: not paused and its clock moving over `ms`. */
export async function videoAdvances(page: Page, ms = 600): Promise<boolean> {
  return page.evaluate(async (wait) => {
    const video = document.querySelector<HTMLVideoElement>('.avatar-video video');
    if (!video || video.paused) return false;
    const before = video.currentTime;
    const frames = video.getVideoPlaybackQuality().totalVideoFrames;
    await new Promise((r) => setTimeout(r, wait));
    return video.currentTime > before && video.getVideoPlaybackQuality().totalVideoFrames > frames;
  }, ms);
}
