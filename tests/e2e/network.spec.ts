/**
 * Sessions over impaired links (issue 12). The browser runs in a network namespace of its
 * own, reaches a stand-in of its own only over a veth pair, and its media goes through a
 * real TURN relay (coturn) behind a delay line; loss, blackouts and a bottleneck are applied
 * to that link only (tests/support/impairedLink.ts). Each scenario writes down what the
 * visitor and support staff must see.
 */
import { chromium, devices, expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { createImpairedLink, impairmentUnavailable, TBF_BURST_BYTES, type ImpairedLink } from '../support/impairedLink.ts';
import { startStandin, type RunningStandin } from '../support/standin.ts';
import { newTurnSecret, startTurnRelay, type TurnRelay } from '../../server/turn.ts';
import { alertBox, endButton, expectLive, expectPreSession, startButton, text, videoAdvances } from './support/app.ts';
import { installCounters, liveCounts } from './support/counters.ts';
import { clearEvents, events, fetchRequester, roomIds, startedRooms, stoppedRooms, type Requester } from './support/standin.ts';

const unavailable = impairmentUnavailable();
test.skip(unavailable !== null, `impaired links need root, ip, nft, tc and coturn: ${unavailable}`);
test.describe.configure({ mode: 'serial' });

/** The specification's start rule: the start request plus the media connection within 15 s. */
const START_LIMIT_MS = 15_000;
const SAMPLE_MS = 5_000;

let link: ImpairedLink;
let standin: RunningStandin;
let turn: TurnRelay | null;
let browser: Browser;
let api: Requester;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  link = await createImpairedLink();
  // The test's own relay on loopback, reached by the browser through the delay line on the link;
  // the stand-in hands out credentials signed with the relay's secret, and the relay reaches the media's address only.
  const secret = newTurnSecret();
  standin = await startStandin({ env: { HOST: link.hostIp, STANDIN_TURN: '0', STANDIN_TURN_SECRET: secret } });
  const port = Number(new URL(standin.url).port);
  const silent = { info: () => undefined, warn: console.warn, error: console.error };
  turn = await startTurnRelay({ host: '127.0.0.1', port, log: silent, secret, peers: [link.hostIp] });
  if (!turn) throw new Error('coturn did not start');
  await link.startDelayLine(port);
  api = fetchRequester(standin.url);
  browser = await chromium.launch({
    executablePath: link.chromiumWrapper,
    // The link's address is plain HTTP: treat it as the HTTPS origin a phone would load.
    args: [...CHROMIUM_ARGS, `--unsafely-treat-insecure-origin-as-secure=${standin.url}`],
  });
});

test.afterAll(async () => {
  await browser?.close();
  await turn?.close();
  await standin?.stop();
  await link?.close();
});

let context: BrowserContext;
test.beforeEach(async () => {
  link.impair({});
  link.blackout(false);
  await api.delete('/__standin/faults');
  context = await browser.newContext({ ...devices['iPhone 12'], viewport: { width: 390, height: 844 }, baseURL: standin.url, locale: 'en-US' });
});
test.afterEach(async () => {
  link.blackout(false);
  link.impair({});
  await context.close();
});

/** Runs in the page: when Start chat was tapped and when the avatar's video first played, by the page's own clock. */
function markStartAndPlay(): void {
  const marks: { tapped?: number; playing?: number } = {};
  (window as unknown as { __startMarks: typeof marks }).__startMarks = marks;
  document.addEventListener('click', () => (marks.tapped ??= performance.now()), true);
  document.addEventListener('playing', (e) => e.target instanceof HTMLVideoElement && (marks.playing ??= performance.now()), true);
}

/**
 * From the tap to the avatar's video playing, as the page lived it: not the test's own later
 * look, which a loaded machine delays by seconds (15.8 s once, for a session the page had live in time).
 */
async function tapToPlayingMs(page: Page): Promise<number> {
  const marks = await page.evaluate(() => (window as unknown as { __startMarks: { tapped?: number; playing?: number } }).__startMarks);
  if (marks.tapped === undefined || marks.playing === undefined) throw new Error(`the page saw no tap or no playing video: ${JSON.stringify(marks)}`);
  return Math.round(marks.playing - marks.tapped);
}

async function openPage(): Promise<Page> {
  const page = await context.newPage();
  await page.addInitScript(markStartAndPlay);
  if (process.env.NETWORK_CONSOLE) page.on('console', (m) => console.log(`[page ${((Date.now() / 1000) % 1000).toFixed(1)}] ${m.text().slice(0, 200)}`));
  await installCounters(page);
  await page.goto('/25d/demo?relay=1&showBitrate=1');
  await expect(startButton(page)).toBeEnabled();
  return page;
}

const LABELS = ['Upstream', 'Downstream', 'Packet loss', 'Jitter', 'RTT', 'Quality', 'Route'] as const;
type Panel = Record<(typeof LABELS)[number], string>;

async function readPanel(page: Page): Promise<Panel> {
  const panel = page.getByRole('region', { name: 'Network stats', exact: true });
  const entries = await Promise.all(LABELS.map(async (label) => [label, (await panel.getByLabel(label, { exact: true }).innerText()).trim()]));
  return Object.fromEntries(entries) as Panel;
}

/** "1,234 kbps" / "3.2%" / "150 ms" → the number; "—" → null. */
const figure = (shown: string): number | null => {
  const match = /^([\d,.]+)/.exec(shown);
  return match?.[1] ? Number(match[1].replace(/,/g, '')) : null;
};

/** The specification's network quality table (docs/requirements.md R115), written out here on its own. */
function specLevel(kbps: number, lossPct: number | null, rttMs: number | null): string {
  const rows: [string, number, number, number][] = [
    ['Excellent', 1000, 1, 100],
    ['Good', 500, 3, 200],
    ['Fair', 300, 5, 300],
  ];
  for (const [level, minKbps, maxLoss, maxRtt] of rows) {
    if (kbps >= minKbps && (lossPct === null || lossPct <= maxLoss) && (rttMs === null || rttMs <= maxRtt)) return level;
  }
  return 'Poor';
}

/** Waits for the panel's next sample (every 5 s) and returns it. */
async function nextSample(page: Page, after: Panel | null): Promise<Panel> {
  let shown = await readPanel(page);
  await expect
    .poll(async () => {
      shown = await readPanel(page);
      return figure(shown.Downstream) !== null && (after === null || JSON.stringify(shown) !== JSON.stringify(after));
    }, { timeout: SAMPLE_MS * 3 })
    .toBe(true);
  return shown;
}

async function samples(page: Page, count: number): Promise<Panel[]> {
  const out: Panel[] = [];
  let last: Panel | null = null;
  for (let i = 0; i < count; i += 1) {
    last = await nextSample(page, last);
    out.push(last);
  }
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

test('150 ms RTT, 30 ms jitter and 3 % loss: live within the 15 s rule, the avatar plays, the panel shows the loss and the level the table gives', async () => {
  test.setTimeout(120_000);
  link.impair({ delayMs: 75, jitterMs: 30, lossPct: 3 });
  const page = await openPage();
  await startButton(page).click();
  await expectLive(page);
  const playingAfter = await tapToPlayingMs(page);
  console.log(`impaired link: the avatar played ${playingAfter} ms after the tap`);
  expect(playingAfter, 'live within the start rule').toBeLessThan(START_LIMIT_MS);
  await expect.poll(() => videoAdvances(page)).toBe(true);

  const shown = await samples(page, 4);
  for (const sample of shown) {
    // The level the table gives for what the panel shows, sample by sample.
    expect(sample.Quality, JSON.stringify(sample)).toBe(specLevel(figure(sample.Downstream)!, figure(sample['Packet loss']), figure(sample.RTT)));
    expect(sample.Route).toBe('relay');
  }
  console.log(`impaired link, panel samples: ${shown.map((s) => `${s.Downstream} / ${s['Packet loss']} / ${s.Jitter} / ${s.RTT} / ${s.Quality}`).join(' | ')}`);
  const loss = median(shown.map((s) => figure(s['Packet loss']) ?? -1));
  // Shown, well above the 0 % of a clean link; below the link's 3 %: the video's lost packets
  // that a NACK brings back in time are not lost for the receiver (one CI run: 1.42, 0.71, 0.83, 0.91 %).
  expect(loss, `median loss over ${shown.length} samples: ${shown.map((s) => s['Packet loss']).join(', ')}`).toBeGreaterThanOrEqual(0.3);
  expect(loss).toBeLessThanOrEqual(6);
  const rtt = median(shown.map((s) => figure(s.RTT) ?? -1));
  expect(rtt, `RTT ${shown.map((s) => s.RTT).join(', ')}`).toBeGreaterThanOrEqual(120);
  expect(rtt).toBeLessThanOrEqual(400);
  await expect(alertBox(page)).toHaveCount(0);
  await page.screenshot({ path: 'tests/artifacts/network-impaired-panel-390x844.png' });
});

test('a 5 s blackout while live: the media reconnect brings the avatar back and the session stays live', async () => {
  test.setTimeout(120_000);
  const page = await openPage();
  await clearEvents(api);
  await startButton(page).click();
  await expectLive(page);
  await expect.poll(() => videoAdvances(page)).toBe(true);

  link.blackout(true);
  await page.waitForTimeout(5_000);
  link.blackout(false);

  // Back: the video moves again, on a connected peer connection, with no alert and End chat still there.
  await expect.poll(() => videoAdvances(page), { timeout: 45_000, message: 'the avatar plays again' }).toBe(true);
  await expect.poll(async () => (await liveCounts(page)).pcOpen).toBe(1);
  await expect(endButton(page)).toBeEnabled();
  await expect(alertBox(page)).toHaveCount(0);
  expect(stoppedRooms(await events(api))).toEqual([]);
});

test('a 10 s blackout while live: the connection is declared lost, and a media reconnect through the relay brings the avatar back', async () => {
  test.setTimeout(120_000);
  const page = await openPage();
  await startButton(page).click();
  await expectLive(page);
  link.blackout(true);
  await page.waitForTimeout(10_000);
  link.blackout(false);
  // A new WHEP connection (the first was dropped), connected, playing; the session never left live.
  await expect.poll(async () => (await liveCounts(page)).pcCreated, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  await expect.poll(() => videoAdvances(page), { timeout: 45_000, message: 'the avatar plays again' }).toBe(true);
  await expect.poll(async () => (await liveCounts(page)).pcOpen).toBe(1);
  await expect(endButton(page)).toBeEnabled();
  await expect(alertBox(page)).toHaveCount(0);
});

test('a 30 s blackout: the reconnect limits end the session with their message, and nothing is left open', async () => {
  test.setTimeout(150_000);
  const page = await openPage();
  await clearEvents(api);
  await startButton(page).click();
  await expectLive(page);
  const started = startedRooms(await events(api));
  expect(started).toHaveLength(1);

  link.blackout(true);
  const blackedAt = Date.now();
  await expect(alertBox(page)).toBeVisible({ timeout: 60_000 });
  const endedAfter = Date.now() - blackedAt;
  await page.waitForTimeout(Math.max(0, 30_000 - endedAfter));
  link.blackout(false);
  await expect(alertBox(page).locator('p')).toHaveText(text('en', 'error.reconnectFailed'));
  await alertBox(page).getByRole('button', { name: text('en', 'notices.ok') }).click();
  await expectPreSession(page);
  await expect.poll(async () => liveCounts(page)).toMatchObject({ pcOpen: 0, socketsOpen: 0 });
  // The room is gone: stopped by the client's stop_live if it got through once the link was
  // back, or reclaimed by the server after 30 s without a sign of life (server/README.md).
  await expect.poll(async () => (await roomIds(api)).filter((id) => started.includes(id)), { timeout: 40_000 }).toEqual([]);
  console.log(`30 s blackout: the session ended ${endedAfter} ms after the blackout began`);
});

test('a 300 kbit/s bottleneck: the panel\'s downstream stays under it over three samples and the level follows the table', async () => {
  test.setTimeout(120_000);
  const page = await openPage();
  await startButton(page).click();
  await expectLive(page);
  link.impair({ rateKbit: 300 });
  // Two samples to let the queue fill and the path settle (the first sample after the bucket
  // went in still carried 380-400 kbps on an idle machine), then the ones that count.
  await samples(page, 2);
  const shown = await samples(page, 3);
  console.log(`300 kbit/s bottleneck, panel samples: ${shown.map((s) => `${s.Downstream} / ${s['Packet loss']} / ${s.RTT} / ${s.Quality}`).join(' | ')}`);
  // A stream larger than the link (the avatar's 1.2 Mbit/s) keeps it saturated, so a sample
  // carries at most the rate plus the token bucket's burst. One sample alone may show more: a
  // browser starved of CPU (a loaded CI machine) reads a backlog from its socket buffer, past
  // the bucket, into the next sample (379 kbps, then 54 and 48; and 407, then 271 and 269, were
  // seen). The median of three is not moved by that one sample.
  const downs = shown.map((sample) => figure(sample.Downstream)!);
  expect(median(downs), `the median of ${downs.join(', ')} kbps`).toBeLessThan(300 + (TBF_BURST_BYTES * 8) / SAMPLE_MS);
  for (const sample of shown) {
    expect(sample.Quality, JSON.stringify(sample)).toBe(specLevel(figure(sample.Downstream)!, figure(sample['Packet loss']), figure(sample.RTT)));
  }
  await expect(endButton(page)).toBeEnabled();
  const counts = link.counts();
  expect(counts.down).toBeGreaterThan(0);
});
