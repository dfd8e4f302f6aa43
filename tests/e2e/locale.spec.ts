/**
 * Languages, the access gate and the missing-id route (docs/requirements.md R6, R9 and R11 to R13;
 * docs/contract.md C17 and C19) in the real app against the stand-in.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support/test.ts';
import { endButton, expectLive, LANGUAGES, openHome, presetLang, startAndWaitLive, startButton, text, toast, type Lang } from './support/app.ts';
import { installCounters } from './support/counters.ts';
import { clearEvents, events, httpIn } from './support/standin.ts';

test.beforeEach(({ page }) => installCounters(page));

// The names are docs/contract.md C17's, pinned by scripts/languages.test.ts; each language's tag is its `intl`.
const LANG_NAMES = Object.fromEntries(LANGUAGES.map((language) => [language.code, language.name])) as Record<Lang, string>;
const HTML_LANG = Object.fromEntries(LANGUAGES.map((language) => [language.code, language.intl])) as Record<Lang, string>;

const storedLang = (page: Page) => page.evaluate(() => window.localStorage.getItem('lang'));
const languageButton = (page: Page, lang: Lang) => page.getByRole('button', { name: text(lang, 'locale.language'), exact: true });
const languageDialog = (page: Page, lang: Lang) => page.getByRole('dialog', { name: text(lang, 'locale.language'), exact: true });

test('the Language dialog lists the five languages with the current one checked', async ({ page }) => {
  await openHome(page);
  await languageButton(page, 'en').click();
  const dialog = languageDialog(page, 'en');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio')).toHaveCount(LANGUAGES.length);
  for (const name of Object.values(LANG_NAMES)) await expect(dialog.getByRole('radio', { name, exact: true })).toBeVisible();
  await expect(dialog.getByRole('radio', { name: 'English' })).toBeChecked();
  await expect(dialog.getByRole('button', { name: 'OK', exact: true })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel', exact: true })).toBeVisible();
});

test('choosing a language with OK changes the texts, stores `lang` and survives a reload', async ({ page }) => {
  await openHome(page);
  // The first load stores the language it picked (en-US browser → en).
  expect(await storedLang(page)).toBe('en');
  await languageButton(page, 'en').click();
  await languageDialog(page, 'en').getByRole('radio', { name: LANG_NAMES.zh }).check();
  await languageDialog(page, 'en').getByRole('button', { name: 'OK' }).click();

  await expect(languageDialog(page, 'en')).toHaveCount(0);
  await expect(startButton(page, 'zh')).toBeVisible();
  await expect(languageButton(page, 'zh')).toBeVisible();
  await expect(page.getByText(text('zh', 'session.chatWithIt'))).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  expect(await storedLang(page)).toBe('zh');

  await page.reload();
  await expect(startButton(page, 'zh')).toBeEnabled();
});

test('Cancel keeps the language', async ({ page }) => {
  await openHome(page);
  await languageButton(page, 'en').click();
  await languageDialog(page, 'en').getByRole('radio', { name: LANG_NAMES.jp }).check();
  await languageDialog(page, 'en').getByRole('button', { name: 'Cancel' }).click();
  await expect(languageDialog(page, 'en')).toHaveCount(0);
  await expect(startButton(page, 'en')).toBeVisible();
  expect(await storedLang(page)).toBe('en');
  // Opening it again starts from the current language, not the cancelled choice.
  await languageButton(page, 'en').click();
  await expect(languageDialog(page, 'en').getByRole('radio', { name: 'English' })).toBeChecked();
});

for (const { code: lang } of LANGUAGES) {
  test(`a stored lang=${lang} before load selects ${LANG_NAMES[lang]}`, async ({ page }) => {
    await presetLang(page, lang);
    await openHome(page, { lang });
    await expect(languageButton(page, lang)).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG[lang]);
    expect(await storedLang(page)).toBe(lang);
  });
}

test('switching the language while live keeps the session and changes its texts', async ({ page }) => {
  await openHome(page);
  await startAndWaitLive(page);
  await languageButton(page, 'en').click();
  await languageDialog(page, 'en').getByRole('radio', { name: LANG_NAMES.zh }).check();
  await languageDialog(page, 'en').getByRole('button', { name: 'OK' }).click();
  await expect(endButton(page, 'zh')).toBeEnabled();
  await expectLive(page, 'zh');
});

for (const lang of ['zh', 'en'] as const) {
  test(`an invalid account (${lang}): the toast "${text(lang, 'error.invalidUser')}" and no content`, async ({ page }) => {
    await presetLang(page, lang);
    await page.goto('/25d/nobody');
    await expect(toast(page, text(lang, 'error.invalidUser'))).toBeVisible();
    await expect(page.locator('.app')).toBeEmpty();
    await expect(page.getByRole('button')).toHaveCount(0);
    await expect(page.getByRole('img')).toHaveCount(0);
    await expect(page.getByRole('heading')).toHaveCount(0);
    // The toast goes away by itself (2000 ms) and leaves an empty page.
    await expect(page.getByRole('status')).toHaveCount(0, { timeout: 5000 });
  });
}

test('no id in the URL: /25d/ renders nothing and asks for no account', async ({ page, request }) => {
  await clearEvents(request);
  const response = await page.goto('/25d/');
  expect(response?.status()).toBe(200);
  // Give the app's script the chance to run: the document is fully loaded and idle.
  await page.waitForLoadState('networkidle');
  await expect(page.locator('#root')).toBeEmpty();
  await expect(page.getByRole('status')).toHaveCount(0);
  await expect(page.getByRole('button')).toHaveCount(0);
  expect(httpIn(await events(request), '/ue/userinfo')).toEqual([]);
  expect(await page.evaluate(() => window.localStorage.getItem('userId'))).toBeNull();
});
