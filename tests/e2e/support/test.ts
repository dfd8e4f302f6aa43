/**
 * The `test` of the session specs: Playwright's, with the shared stand-in kept clean around
 * every test, whatever the test does or however it fails.
 *
 * - Before: no fault set (faults are global to the one stand-in).
 * - `rooms.made()`: the rooms on the stand-in now that did not exist when this test began,
 *   so a test's "nothing left" counts what it made, never a room of an earlier test.
 * - After a failure: the app's session log (Ctrl+Shift+L, as support staff take it) is attached
 *   to the test's results, to read the client's side of what went wrong.
 * - After: faults cleared; the rooms this test made and its page still owns are stopped
 *   (a test may end while live); a room that is still there after that fails THIS test,
 *   with its id, rather than every later test that finds the stand-in full.
 */
import { test as base, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
import { clearFaults, roomIds } from './standin.ts';

export interface Rooms {
  /** Rooms that exist now and were made during this test. */
  made(): Promise<string[]>;
}

/** How long a room stopped with /stop_live may take to leave the streams list. */
const STOP_SETTLES_MS = 5_000;

async function stopRooms(request: APIRequestContext, page: Page, rooms: string[]): Promise<void> {
  const deviceId = await page.evaluate(() => window.localStorage.getItem('login-deviceId')).catch(() => null);
  if (!deviceId) return;
  for (const roomId of rooms) await request.post('/stop_live', { data: { room_id: roomId, device_id: deviceId } });
}

async function attachSessionLog(page: Page, testInfo: TestInfo): Promise<void> {
  try {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 5_000 }), page.keyboard.press('Control+Shift+L')]);
    await testInfo.attach('session-log', { path: await download.path(), contentType: 'application/json' });
  } catch {
    // A page that is gone or not the app has no log to give: the failure itself says enough.
  }
}

export const test = base.extend<{ rooms: Rooms; standinClean: void }>({
  rooms: async ({ request }, use) => {
    const before = new Set(await roomIds(request));
    await use({ made: async () => (await roomIds(request)).filter((id) => !before.has(id)) });
  },
  standinClean: [
    async ({ request, page, rooms }, use, testInfo) => {
      await clearFaults(request);
      await use();
      if (testInfo.status !== testInfo.expectedStatus) await attachSessionLog(page, testInfo);
      await clearFaults(request);
      const left = await rooms.made();
      if (left.length === 0) return;
      await stopRooms(request, page, left);
      const deadline = Date.now() + STOP_SETTLES_MS;
      let still = await rooms.made();
      while (still.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        still = await rooms.made();
      }
      if (still.length > 0) throw new Error(`this test left rooms on the stand-in that its page could not stop: ${still.join(', ')}`);
    },
    { auto: true },
  ],
});
export { expect } from '@playwright/test';
