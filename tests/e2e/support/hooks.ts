/**
 * The before/after steps every session test shares. Faults are global to the
 * one stand-in, so each test starts and ends with none set.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { installCounters } from './counters.ts';
import { clearFaults, stopLeftoverRooms } from './standin.ts';

export async function beforeSessionTest({ page, request }: { page: Page; request: APIRequestContext }): Promise<void> {
  await clearFaults(request);
  await installCounters(page);
}

export async function afterSessionTest({ page, request }: { page: Page; request: APIRequestContext }): Promise<void> {
  await clearFaults(request);
  const deviceId = await page.evaluate(() => window.localStorage.getItem('login-deviceId')).catch(() => null);
  await stopLeftoverRooms(request, deviceId);
}
