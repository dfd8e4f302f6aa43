/**
 * Media through a real TURN relay (issue 12): the stand-in runs Debian's coturn on UDP at
 * its own port number (server/turn.ts), the `local` build names it with its credential, and
 * `?relay=1` makes the peer connection relay-only. What a visitor behind a strict NAT gets:
 * every media packet goes through the relay, and support staff can see that it does.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support/test.ts';
import { alertBox, expectLive, expectPreSession, LIVE_TIMEOUT_MS, startButton, text, videoAdvances } from './support/app.ts';
import { audioPeak, startAudioMeter } from './support/audio.ts';
import { liveCounts } from './support/counters.ts';
import { installCounters } from './support/counters.ts';
import { clearEvents, events, httpOut, roomIds, setFaults, startedRooms, stoppedRooms, whepOfferStatuses } from './support/standin.ts';

test.beforeEach(({ page }) => installCounters(page));

const SPEECH_RMS = 0.01;
const FAULT_REACTION_MS = 30_000;

interface PeerRoute {
  /** The ICE policy the app asked for. */
  policy: string | undefined;
  state: RTCPeerConnectionState;
  /** Types of every local candidate gathered. */
  local: string[];
  /** Type of the local candidate of the pair the transport has selected. */
  selected: string | null;
}

/** Runs in the page: the route of every peer connection the page made (tests/e2e/support/counters.ts holds them). */
async function routesInPage(): Promise<PeerRoute[]> {
  const pcs = window.__counters?.pcs ?? [];
  return Promise.all(
    pcs.map(async (pc) => {
      const route: PeerRoute = { policy: pc.getConfiguration().iceTransportPolicy, state: pc.connectionState, local: [], selected: null };
      if (pc.signalingState === 'closed') return route;
      type Stat = { id: string; type: string; candidateType?: string; selectedCandidatePairId?: string; localCandidateId?: string };
      const stats: Stat[] = [];
      (await pc.getStats()).forEach((s: Stat) => stats.push(s));
      const byId = new Map(stats.map((s) => [s.id, s]));
      for (const s of stats) {
        if (s.type === 'local-candidate' && s.candidateType) route.local.push(s.candidateType);
        if (s.type === 'transport' && s.selectedCandidatePairId) {
          const pair = byId.get(s.selectedCandidatePairId);
          route.selected = (pair?.localCandidateId && byId.get(pair.localCandidateId)?.candidateType) || null;
        }
      }
      return route;
    }),
  );
}

const routes = (page: Page) => page.evaluate(routesInPage);
const panel = (page: Page) => page.getByRole('region', { name: 'Network stats', exact: true });

test('?relay=1: the avatar plays with sound through the TURN relay, and the panel says relay', async ({ page, request }) => {
  await page.goto('/25d/demo?relay=1&showBitrate=1');
  await expect(startButton(page)).toBeEnabled();
  await startButton(page).click();
  await expectLive(page);
  await expect.poll(() => videoAdvances(page)).toBe(true);

  // Every local candidate is the relay's, and the selected pair's local side is the relay.
  const [first] = await routes(page);
  expect(first).toMatchObject({ policy: 'relay', state: 'connected', selected: 'relay' });
  expect(first!.local.length).toBeGreaterThan(0);
  expect(new Set(first!.local)).toEqual(new Set(['relay']));

  // The avatar speaks with sound through it.
  await startAudioMeter(page);
  expect((await request.post('/__standin/say', { data: { text: 'This reply comes to you through the relay.' } })).status()).toBe(200);
  await expect.poll(() => audioPeak(page), { timeout: LIVE_TIMEOUT_MS, message: 'avatar audio energy' }).toBeGreaterThan(SPEECH_RMS);

  // Support staff read it on the panel (sampled every 5 s).
  await expect(panel(page).getByLabel('Route', { exact: true })).toHaveText('relay', { timeout: 15_000 });
});

test('?relay=1 with media-drop: the new WHEP connection is relayed too, and the avatar plays on', async ({ page, request }) => {
  test.setTimeout(90_000);
  await page.goto('/25d/demo?relay=1');
  await expect(startButton(page)).toBeEnabled();
  // Live-session faults fire 2 s after the session goes live.
  await setFaults(request, 'media-drop');
  await clearEvents(request);
  await startButton(page).click();
  await expectLive(page);
  await expect
    .poll(async () => whepOfferStatuses(await events(request)), { timeout: FAULT_REACTION_MS })
    .toEqual([201, 201]);
  await expect.poll(async () => (await liveCounts(page)).pcCreated, { timeout: FAULT_REACTION_MS }).toBe(2);
  await expect.poll(async () => (await routes(page))[1]?.state, { timeout: FAULT_REACTION_MS }).toBe('connected');
  const [first, second] = await routes(page);
  expect(first).toMatchObject({ policy: 'relay', state: 'closed' });
  expect(second).toMatchObject({ policy: 'relay', selected: 'relay' });
  expect(new Set(second!.local)).toEqual(new Set(['relay']));
  await expect.poll(() => videoAdvances(page), { timeout: LIVE_TIMEOUT_MS }).toBe(true);
  expect((await liveCounts(page)).pcOpen).toBe(1);
  await expect(alertBox(page)).toHaveCount(0);
});

test('without ?relay=1 the same build offers host and relay candidates and the panel names the pair in use', async ({ page }) => {
  await page.goto('/25d/demo?showBitrate=1');
  await expect(startButton(page)).toBeEnabled();
  await startButton(page).click();
  await expectLive(page);
  const [route] = await routes(page);
  expect(route).toMatchObject({ policy: 'all', state: 'connected' });
  expect(route!.local).toContain('host');
  expect(route!.local).toContain('relay');
  expect(['host', 'relay']).toContain(route!.selected);
  await expect(panel(page).getByLabel('Route', { exact: true })).toHaveText(route!.selected!, { timeout: 15_000 });
});

test('a wrong TURN credential with ?relay=1: the ICE error message, the session ends, and nothing is left open', async ({ page, request }) => {
  // A build whose credential the relay no longer accepts (rotated, say): the test changes
  // the credential the page hands to RTCPeerConnection; the relay itself is the real one.
  await page.addInitScript(() => {
    const Native = window.RTCPeerConnection;
    class WithStaleCredential extends Native {
      constructor(config?: RTCConfiguration) {
        super({ ...config, iceServers: (config?.iceServers ?? []).map((server) => ({ ...server, credential: 'no-longer-valid' })) });
      }
    }
    window.RTCPeerConnection = WithStaleCredential;
  });
  await page.goto('/25d/demo?relay=1');
  await expect(startButton(page)).toBeEnabled();
  await clearEvents(request);
  await startButton(page).click();
  await expect(alertBox(page)).toBeVisible({ timeout: LIVE_TIMEOUT_MS });
  await expect(alertBox(page).locator('p')).toHaveText(text('en', 'error.iceError'));
  await alertBox(page).getByRole('button', { name: text('en', 'notices.ok') }).click();
  await expectPreSession(page);

  const seen = await events(request);
  const started = startedRooms(seen);
  expect(started).toHaveLength(1);
  // Nothing went to the media server: an offer without candidates is never posted.
  expect(httpOut(seen, '/rtc/v1/whep/')).toEqual([]);
  await expect.poll(async () => stoppedRooms(await events(request))).toEqual(started);
  await expect.poll(async () => (await roomIds(request)).filter((id) => started.includes(id))).toEqual([]);
  await expect.poll(async () => liveCounts(page)).toMatchObject({ pcOpen: 0, socketsOpen: 0 });
});
