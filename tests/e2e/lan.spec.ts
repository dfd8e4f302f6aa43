/**
 * A phone on a LAN (issue 21): `npm start -- --lan` as a visitor's phone on the same Wi-Fi
 * meets it. The stand-in runs with `--lan` (HTTPS on every interface, its own self-signed
 * certificate) in this machine's network namespace; Chromium runs in a network namespace of
 * its own joined to it by a veth pair (tests/support/impairedLink.ts, nothing impaired), so
 * the only address of the server it can reach is the LAN address on that pair: never the
 * server's loopback, nor its other interfaces. The browser accepts that one certificate (its
 * public key, as a phone's "accept this certificate" does), so the page is a secure context
 * and the microphone works. The test process drives the stand-in's control endpoints over its
 * loopback, the only address they answer under `--lan`.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, devices, expect, request as requests, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { createImpairedLink, impairmentUnavailable, type ImpairedLink } from '../support/impairedLink.ts';
import { REPO_ROOT, startStandin, type RunningStandin } from '../support/standin.ts';
import { startUdpEcho, type TurnProbeInput, type TurnProbeResult } from '../support/turnProbe.ts';
import { avatarVideo, endButton, expectLive, expectPreSession, LIVE_TIMEOUT_MS, startButton, text, videoAdvances } from './support/app.ts';
import { installCounters, liveCounts } from './support/counters.ts';
import { clearEvents, events, startedRooms, stoppedRooms } from './support/standin.ts';

const unavailable = impairmentUnavailable();
test.skip(unavailable !== null, `a phone on a LAN needs root, ip, nft and coturn (network namespaces): ${unavailable}`);
test.describe.configure({ mode: 'serial' });

const REPLY_MS = 45_000;
/** The microphone asks two questions, a few seconds apart, in every loop of the file (Chromium's fake device loops it). */
const SPOKEN = fileURLToPath(new URL('../fixtures/call-two-questions.wav', import.meta.url));

let link: ImpairedLink;
let config: string;
let standin: RunningStandin;
let browser: Browser;
/** The stand-in's control endpoints, over its loopback (the test process runs on the server's machine). */
let api: APIRequestContext;
/** What the phone opens: the server's address on the veth pair. */
let phoneOrigin: string;
let port: number;

/** The base64 SHA-256 of a certificate's public key, as --ignore-certificate-errors-spki-list takes it. */
function spkiHash(pem: string): string {
  const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  link = await createImpairedLink();
  // The certificate goes where `npm start -- --lan` keeps it, under a config folder of this run's.
  config = mkdtempSync(join(tmpdir(), 'lan-spec-config-'));
  standin = await startStandin({ args: ['--lan'], env: { HOST: '0.0.0.0', XDG_CONFIG_HOME: config } });
  port = Number(new URL(standin.url).port);
  phoneOrigin = `https://${link.hostIp}:${port}`;
  api = await requests.newContext({ baseURL: `https://127.0.0.1:${port}`, ignoreHTTPSErrors: true });
  const cert = readFileSync(join(config, 'avatar-chat', 'lan-cert', 'cert.pem'), 'utf8');
  browser = await chromium.launch({
    executablePath: link.chromiumWrapper,
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spkiHash(cert)}`, `--use-file-for-fake-audio-capture=${SPOKEN}`],
    ignoreDefaultArgs: ['--mute-audio'],
  });
});

test.afterAll(async () => {
  await browser?.close();
  await api?.dispose();
  await standin?.stop();
  await link?.close();
  if (config) rmSync(config, { recursive: true, force: true });
});

let context: BrowserContext;
test.beforeEach(async () => {
  context = await browser.newContext({ ...devices['iPhone 12'], viewport: { width: 390, height: 844 }, baseURL: phoneOrigin, locale: 'en-US' });
});
test.afterEach(async () => {
  await context.close();
});

async function openPage(query = ''): Promise<Page> {
  const page = await context.newPage();
  await installCounters(page);
  await page.goto(`/25d/demo${query}`);
  await expect(startButton(page)).toBeEnabled();
  return page;
}

const button = (page: Page, id: string) => page.getByRole('button', { name: text('en', id), exact: true });
const chatLog = (page: Page) => page.getByRole('log', { name: 'Chat log' });
const ownMessages = (page: Page) => chatLog(page).locator('.msg--me');
const replies = (page: Page) => chatLog(page).locator('.msg--ai');

interface PeerView {
  iceServers: string[];
  policy: string | undefined;
  /** Addresses of the host candidates in the WHEP answer. */
  answerHosts: string[];
  /** The selected pair: local candidate type, remote address. */
  localType: string | null;
  remoteAddress: string | null;
}

/** Runs in the page: what its first peer connection was given, and the path its media takes. */
async function peerInPage(): Promise<PeerView | null> {
  const pc = window.__counters?.pcs[0];
  if (!pc) return null;
  const config = pc.getConfiguration();
  const answerHosts = [...(pc.remoteDescription?.sdp ?? '').matchAll(/^a=candidate:\S+ \d+ udp \d+ (\S+) \d+ typ host/gim)].map((m) => m[1]!);
  type Stat = { id: string; type: string; candidateType?: string; address?: string; selectedCandidatePairId?: string; localCandidateId?: string; remoteCandidateId?: string };
  const stats: Stat[] = [];
  (await pc.getStats()).forEach((s: Stat) => stats.push(s));
  const byId = new Map(stats.map((s) => [s.id, s]));
  const transport = stats.find((s) => s.type === 'transport' && s.selectedCandidatePairId);
  const pair = transport ? byId.get(transport.selectedCandidatePairId!) : undefined;
  return {
    iceServers: (config.iceServers ?? []).flatMap((s) => (Array.isArray(s.urls) ? s.urls : [s.urls])),
    policy: config.iceTransportPolicy,
    answerHosts,
    localType: (pair?.localCandidateId && byId.get(pair.localCandidateId)?.candidateType) || null,
    remoteAddress: (pair?.remoteCandidateId && byId.get(pair.remoteCandidateId)?.address) || null,
  };
}

/** Runs the TURN probe inside the phone's network namespace, as a device on that network would. */
async function probeFromPhone(input: TurnProbeInput): Promise<TurnProbeResult> {
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
    execFile('ip', ['netns', 'exec', link.namespace, process.execPath, '--import', 'tsx', 'tests/support/turnProbe.ts', JSON.stringify(input)], { cwd: REPO_ROOT, timeout: 60_000 }, (err, out) =>
      err ? reject(err) : resolve({ stdout: out }),
    ),
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as TurnProbeResult;
}

/** A UDP echo inside the phone's namespace, on its own address: another host of a network the server routes. */
async function echoInPhoneNetwork(): Promise<{ port: number; stop(): void }> {
  const script = `const s=require('node:dgram').createSocket('udp4');s.on('message',(m,r)=>s.send(m,r.port,r.address));s.bind(0,${JSON.stringify(link.nsIp)},()=>console.log(s.address().port));`;
  const child = spawn('ip', ['netns', 'exec', link.namespace, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { port: Number(line.toString().trim()), stop: () => child.kill() };
}

test('npm start -- --lan prints the phone\'s https:// URL, and from the phone the server is reachable on that address only, with its control endpoints closed', async () => {
  test.setTimeout(120_000);
  expect(standin.url).toBe(`https://0.0.0.0:${port}`);
  expect(standin.printed, 'a demo URL for the LAN address the phone has').toContain(`Demo: ${phoneOrigin}/25d/demo`);
  const page = await openPage();
  expect(await page.evaluate(() => window.isSecureContext), 'a secure context (the microphone needs one)').toBe(true);
  expect(await page.evaluate(() => typeof navigator.mediaDevices?.getUserMedia)).toBe('function');
  expect((await (await context.newPage()).goto(`${phoneOrigin}/healthz`))?.status()).toBe(200);
  expect(await page.content()).not.toContain('127.0.0.1');

  // The relay is no way into the server: with the credential this page is handed, it reaches
  // the media's LAN address (as the phone does without it) and nothing else, neither the
  // server's loopback nor another host of a network the server routes.
  const route = await page.evaluate(async () => (await (await fetch('/get/route', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"uid":"demo","serverName":"standin"}' })).json()) as { data: { iceServers?: RTCIceServer[] } });
  const [relay] = route.data.iceServers ?? [];
  expect(relay, 'the route hands the page a relay with its own credential').toMatchObject({ urls: [`turn:${link.hostIp}:${port}?transport=udp`] });
  const media = await startUdpEcho(link.hostIp);
  const loopback = await startUdpEcho('127.0.0.1');
  const elsewhere = await echoInPhoneNetwork();
  try {
    const probe = await probeFromPhone({
      relay: { host: link.hostIp, port },
      username: relay!.username!,
      credential: relay!.credential as string,
      peers: [
        { host: link.hostIp, port: media.port },
        { host: '127.0.0.1', port: loopback.port },
        { host: link.nsIp, port: elsewhere.port },
      ],
    });
    test.info().annotations.push({ type: 'relay', description: JSON.stringify(probe) });
    expect(probe.refused).toBeNull();
    expect(probe.peers.map((p) => p.echoed)).toEqual([40, 0, 0]);
    // The old build's fixed credential is refused outright.
    const old = await probeFromPhone({ relay: { host: link.hostIp, port }, username: 'standin', credential: 'standin-relay', peers: [{ host: link.hostIp, port: media.port }], packets: 1 });
    expect(old.refused).not.toBeNull();
  } finally {
    media.close();
    loopback.close();
    elsewhere.stop();
  }

  // The control endpoints answer this machine only: 403 to the phone, 200 to the loopback.
  const fromPhone = await page.evaluate(async () => (await fetch('/__standin/events')).status);
  expect(fromPhone).toBe(403);
  const setFromPhone = await page.evaluate(
    async () => (await fetch('/__standin/faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"faults":["media-down"]}' })).status,
  );
  expect(setFromPhone).toBe(403);
  expect((await api.get('/__standin/faults')).status()).toBe(200);
  expect(await (await api.get('/__standin/faults')).json()).toEqual({ faults: [] });
});

test('a whole session from the phone: live video over the LAN address, a typed question answered, a spoken question answered in a call, the end', async () => {
  test.setTimeout(240_000);
  await clearEvents(api);
  const page = await openPage();
  await startButton(page).click();
  await expectLive(page);
  await expect.poll(() => videoAdvances(page), { timeout: LIVE_TIMEOUT_MS, message: 'the avatar plays' }).toBe(true);

  // Every address the app was given is the one the phone used.
  const peer = (await page.evaluate(peerInPage))!;
  expect(peer.iceServers).toEqual([`turn:${link.hostIp}:${port}?transport=udp`]);
  expect(peer.answerHosts, 'the WHEP answer offers the LAN address').toContain(link.hostIp);
  expect(peer.answerHosts, 'and nothing the phone cannot reach: no loopback').not.toContain('127.0.0.1');
  expect(peer.remoteAddress, 'the media comes from the LAN address').toBe(link.hostIp);
  const sockets = await page.evaluate(() => (window.__counters?.sockets ?? []).map((s) => s.url));
  expect(sockets.some((url) => url.startsWith(`wss://${link.hostIp}:${port}/`)), sockets.join(' ')).toBe(true);
  expect(sockets.every((url) => url.startsWith(`wss://${link.hostIp}:${port}/`)), sockets.join(' ')).toBe(true);

  // A typed question, answered.
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('tell me about the discount');
  await box.press('Enter');
  await expect(ownMessages(page).filter({ hasText: 'tell me about the discount' })).toHaveCount(1);
  await expect(replies(page).filter({ hasText: 'every new member gets twenty percent off' })).toBeVisible({ timeout: REPLY_MS });

  // A spoken question in a call (the speech service over wss:// on the LAN address), answered.
  await button(page, 'voice.startCall').click();
  await expect(button(page, 'voice.hangUp')).toBeVisible({ timeout: 45_000 });
  await expect(ownMessages(page).filter({ hasText: /what are your opening hours/i }).first()).toBeVisible({ timeout: REPLY_MS });
  await expect(replies(page).filter({ hasText: 'We are open every day from ten in the morning' }).first()).toBeVisible({ timeout: REPLY_MS });
  const speechSockets = await page.evaluate(() => (window.__counters?.sockets ?? []).map((s) => s.url).filter((url) => !url.includes('/ws/signaling')));
  expect(speechSockets.length, 'the call opened the speech service').toBeGreaterThan(0);
  expect(speechSockets.every((url) => url.startsWith(`wss://${link.hostIp}:${port}/`)), speechSockets.join(' ')).toBe(true);
  await button(page, 'voice.hangUp').click();
  await expect(button(page, 'voice.startCall')).toBeVisible();

  // The end: back to the start screen, the room stopped, nothing left open.
  await endButton(page).click();
  await expectPreSession(page);
  await expect(avatarVideo(page)).toHaveCount(0);
  await expect.poll(async () => liveCounts(page)).toMatchObject({ pcOpen: 0, socketsOpen: 0 });
  const seen = await events(api);
  const started = startedRooms(seen);
  expect(started).toHaveLength(1);
  await expect.poll(async () => stoppedRooms(await events(api))).toEqual(started);
});

test('?relay=1 from the phone: the media goes through the TURN relay on the LAN address', async () => {
  test.setTimeout(120_000);
  const page = await openPage('?relay=1');
  await startButton(page).click();
  await expectLive(page);
  await expect.poll(() => videoAdvances(page), { timeout: LIVE_TIMEOUT_MS, message: 'the avatar plays through the relay' }).toBe(true);
  const peer = (await page.evaluate(peerInPage))!;
  expect(peer).toMatchObject({ policy: 'relay', localType: 'relay', iceServers: [`turn:${link.hostIp}:${port}?transport=udp`] });
  await endButton(page).click();
  await expectPreSession(page);
});
