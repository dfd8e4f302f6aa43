/**
 * What real phones and real networks do to a session that a clean loopback run never
 * shows (issue 19): a dead ICE server among the configured ones, a Cancel while the room
 * is being made, a user service that does not answer for a moment, and a browser that
 * lacks the newer platform features. Only the real app, the real stand-in (with its
 * request faults, server/README.md) and, where a browser must look older or a deployment must
 * list a dead server, an init script that changes what the page is given.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support/test.ts';
import {
  alertBox,
  cancelDeliberately,
  expectLive,
  expectPreSession,
  openHome,
  startAndWaitLive,
  startButton,
  text,
  toast,
} from './support/app.ts';
import { installCounters } from './support/counters.ts';
import { withoutNewerPlatform, withUnreachableStunServer } from './support/pageShims.ts';
import { snap } from './support/screenshots.ts';
import { clearEvents, clearFaults, events, httpIn, httpOut, setFaults } from './support/standin.ts';

test.beforeEach(({ page }) => installCounters(page));

const chatLog = (page: Page) => page.getByRole('log', { name: 'Chat log' });
const retryButton = (page: Page) => page.getByRole('button', { name: text('en', 'account.retry'), exact: true });

test('an unreachable STUN server among the ICE servers: its candidate errors are only logged, and the session goes live', async ({ page }) => {
  // A deployment whose ICE servers include one that cannot be reached (its host does not
  // resolve): the browser reports icecandidateerror for it while the other candidates connect.
  await page.addInitScript(withUnreachableStunServer);
  await openHome(page);
  await startAndWaitLive(page);
  expect(await page.evaluate(() => window.__iceCandidateErrors?.count ?? 0), 'the browser reported no candidate error').toBeGreaterThan(0);
  await expect(alertBox(page)).toHaveCount(0);
  await expectLive(page);
});

test('Cancel while start_live is in flight: the ending does not wait, and the room made meanwhile is stopped once its answer comes', async ({
  page,
  request,
  rooms,
}) => {
  await setFaults(request, 'start-live-late');
  await openHome(page);
  await clearEvents(request);
  const newRooms = () => rooms.made();
  await startButton(page).click();
  const tapped = Date.now();
  // The room exists on the server from the request on; its answer waits for the fault to be cleared.
  await expect.poll(newRooms).toHaveLength(1);
  const [roomId] = await newRooms();
  await cancelDeliberately(page, tapped);
  // The answer is held until the fault is cleared (20 s at most): back before it means the
  // ending did not wait for it.
  await expectPreSession(page, 'en', 10_000);
  expect(httpOut(await events(request), '/start_live'), 'back while start_live was still unanswered').toEqual([]);
  await clearFaults(request);
  await expect.poll(newRooms, { timeout: 15_000, message: 'the room made while start_live was in flight was stopped' }).toEqual([]);
  const stops = httpIn(await events(request), '/stop_live').map((e) => (e.body.body as { room_id?: string }).room_id);
  expect(stops).toEqual([roomId]);
});

test('a user service that fails once: the client retries and the visitor never sees an error', async ({ page, request }) => {
  await setFaults(request, 'userinfo-flaky');
  await clearEvents(request);
  await openHome(page);
  expect(httpIn(await events(request), '/ue/userinfo')).toHaveLength(2);
  await expect(toast(page, text('en', 'error.invalidUser'))).toHaveCount(0);
  await expect(retryButton(page)).toHaveCount(0);
});

test('a user service that cannot be reached: a network message with Retry, the stored account kept, and Retry loads it', async ({
  page,
  request,
}) => {
  await openHome(page);
  const stored = await page.evaluate(() => window.localStorage.getItem('userInfo'));
  expect(stored).not.toBeNull();
  // The account is kept on the device, its speech key is not (in memory only).
  expect(JSON.parse(stored!)).toHaveProperty('title');
  expect(JSON.parse(stored!)).not.toHaveProperty('AsrList');

  await setFaults(request, 'userinfo-error');
  await clearEvents(request);
  await page.reload();
  await expect(retryButton(page)).toBeVisible({ timeout: 15_000 });
  await expect(alertBox(page)).toContainText(text('en', 'account.unreachable'));
  await snap(page, 'account-unreachable-390x844');
  // The client's own retries came first: three attempts in all.
  expect(httpIn(await events(request), '/ue/userinfo')).toHaveLength(3);
  await expect(toast(page, text('en', 'error.invalidUser'))).toHaveCount(0);
  expect(await page.evaluate(() => window.localStorage.getItem('userInfo'))).toBe(stored);

  await request.delete('/__standin/faults');
  await retryButton(page).click();
  await expect(startButton(page)).toBeEnabled();
  await expect(retryButton(page)).toHaveCount(0);
});

test('a browser without crypto.randomUUID, AbortSignal.throwIfAborted and Array.prototype.at: a first visit boots, chats and starts a call', async ({ page }) => {
  // iOS Safari before 15.4 and older in-app WebViews lack all three; any page outside a
  // secure context lacks crypto.randomUUID.
  await page.addInitScript(withoutNewerPlatform);
  await openHome(page);
  // The page really lacks all three, or the test proves nothing about their fallbacks.
  expect(await page.evaluate(() => [typeof crypto.randomUUID, typeof AbortSignal.prototype.throwIfAborted, typeof [].at])).toEqual(['undefined', 'undefined', 'undefined']);
  expect(await page.evaluate(() => window.localStorage.getItem('login-deviceId'))).toMatch(/^H5[0-9a-f]{32}$/);
  await startAndWaitLive(page);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('what are your opening hours');
  await box.press('Enter');
  await expect(chatLog(page).locator('.msg--ai').filter({ hasText: 'We are open every day' })).toBeVisible({ timeout: 45_000 });
  await page.getByRole('button', { name: text('en', 'voice.startCall'), exact: true }).click();
  await expect(page.getByRole('button', { name: text('en', 'voice.hangUp'), exact: true })).toBeVisible({ timeout: 45_000 });
  await page.getByRole('button', { name: text('en', 'voice.hangUp'), exact: true }).click();
  await expect(page.getByRole('button', { name: text('en', 'voice.startCall'), exact: true })).toBeVisible();
  await expect(alertBox(page)).toHaveCount(0);
});
