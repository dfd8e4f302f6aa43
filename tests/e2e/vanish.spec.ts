/**
 * A browser that vanishes without End chat (a crashed tab, a phone that dies): no stop_live,
 * no WHEP DELETE, no close_webrtc. The stand-in must notice by itself, as SRS does (an RTC
 * session without a STUN request for 30 s is gone) and from the signaling socket that went
 * away, and give the avatar back: eight dead tabs must never hold the eight avatars.
 *
 * The browser here is a Chromium of its own, started by the test and killed outright
 * (SIGKILL to its whole process group: browser, renderer and network service at once).
 */
import { chromium, devices, expect, test, type BrowserServer } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { startAndWaitLive, startButton } from './support/app.ts';
import { clearEvents, events, roomIds, startedRooms, stoppedRooms, whepDeletes, type StandinEvent } from './support/standin.ts';

/** What the stand-in promises (server/README.md, *Limits*): a vanished visitor's room goes within 30 s. */
const RECLAIM_LIMIT_MS = 30_000;

let server: BrowserServer | null = null;
test.afterEach(async () => {
  await server?.close().catch(() => undefined);
  server = null;
});

/** The WHEP peers of `roomId` the stand-in reported as closed, and all it answered. */
function peersOf(list: StandinEvent[], roomId: string): { answered: string[]; closed: string[] } {
  const whep = list.filter((e) => e.channel === 'whep' && e.dir === 'out' && e.body.roomId === roomId);
  const ids = (state: string) => [...new Set(whep.filter((e) => e.body.state === state).map((e) => String(e.body.peerId)))];
  return { answered: ids('connected'), closed: ids('closed') };
}

test('a browser killed without End chat: its room and its peers are reclaimed within 30 s', async ({ request, baseURL }) => {
  test.setTimeout(120_000);
  await clearEvents(request);
  server = await chromium.launchServer({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    ignoreDefaultArgs: ['--mute-audio'],
  });
  const browser = await chromium.connect(server.wsEndpoint());
  const context = await browser.newContext({ ...devices['iPhone 12'], viewport: { width: 390, height: 844 }, baseURL: baseURL!, locale: 'en-US' });
  const page = await context.newPage();
  await page.goto('/25d/demo');
  await expect(startButton(page)).toBeEnabled();
  await startAndWaitLive(page);
  const [roomId] = startedRooms(await events(request));
  expect(roomId).toBeDefined();
  expect(await roomIds(request)).toContain(roomId);
  await expect.poll(async () => peersOf(await events(request), roomId!).answered.length).toBeGreaterThan(0);

  // The tab dies: every process of that browser at once, nothing said to anyone.
  const pid = server.process().pid!;
  const killedAt = Date.now();
  process.kill(-pid, 'SIGKILL');
  server = null;

  await expect
    .poll(async () => (await roomIds(request)).includes(roomId!), { timeout: RECLAIM_LIMIT_MS, intervals: [250], message: `room ${roomId} still listed ${RECLAIM_LIMIT_MS / 1000} s after its browser died` })
    .toBe(false);
  const reclaimedMs = Date.now() - killedAt;
  const seen = await events(request);
  test.info().annotations.push({ type: 'reclaimed', description: `room gone ${reclaimedMs} ms after its browser was killed` });
  // Nobody stopped it or hung up: the stand-in did it by itself, and closed its peers with it.
  expect(stoppedRooms(seen)).toEqual([]);
  expect(whepDeletes(seen)).toEqual([]);
  const { answered, closed } = peersOf(seen, roomId!);
  expect(closed.sort()).toEqual(answered.sort());
});
