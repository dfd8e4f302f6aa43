/**
 * The product as it is deployed: `npm run build` (--mode product) from a clean tree, served
 * by Debian's nginx with docs/nginx.conf, talking to the back end across origins through the
 * VITE_* variables (services, and VITE_SPEECH_HOST for the speech service by host), here a
 * stand-in of its own that lets the nginx origin open its sockets (STANDIN_ALLOWED_ORIGINS).
 */
import { request as playwrightRequest, type APIRequestContext, type Page } from '@playwright/test';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CSP } from '../../server/http/static.ts';
import { buildProduct, cleanTree, freePort, nginxUnavailable, startNginx, type RunningNginx } from '../support/productHosting.ts';
import { startStandin, type RunningStandin } from '../support/standin.ts';
import { endChat, expectLive } from './support/app.ts';
import { events, signalingFrames } from './support/standin.ts';
import { ownMessages, padded, reply, REPLY_MS, startCall, typeQuestion } from './support/voice.ts';
import { expect, test } from './support/voiceBrowser.ts';

test.describe.configure({ mode: 'serial' });

let tree = '';
let dist = '';
let standin: RunningStandin | null = null;
let nginx: RunningNginx | null = null;
let backEnd: APIRequestContext | null = null;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const why = nginxUnavailable();
  if (why) throw new Error(why);
  const port = await freePort();
  standin = await startStandin({ env: { STANDIN_VIDEO_PROFILE: 'small', STANDIN_ALLOWED_ORIGINS: `http://127.0.0.1:${port}` } });
  // A connection each: the stand-in closes a keep-alive connection idle 5 s, and a poll that
  // reused one as it closed failed with ECONNRESET on a loaded machine (CI).
  backEnd = await playwrightRequest.newContext({ baseURL: standin.url, extraHTTPHeaders: { connection: 'close' } });
  tree = cleanTree();
  const wsUrl = standin.url.replace(/^http/, 'ws');
  dist = buildProduct(tree, {
    VITE_USER_SERVICE_URL: standin.url,
    VITE_ROUTING_SERVICE_URL: standin.url,
    VITE_LIVE_SERVICE_URL: standin.url,
    VITE_SPEECH_HOST: wsUrl,
  });
  nginx = await startNginx(dist, port);
});

test.afterAll(async () => {
  await nginx?.stop();
  await backEnd?.dispose();
  await standin?.stop();
  if (tree) rmSync(tree, { recursive: true, force: true });
});

/** Every file name a built file names below assets/ (absolute, or relative between chunks). */
function referencedAssets(): Set<string> {
  const names = new Set<string>();
  const scan = (text: string, re: RegExp) => {
    for (const match of text.matchAll(re)) names.add(match[1]!);
  };
  scan(readFileSync(join(dist, 'index.html'), 'utf8'), /\/25d\/assets\/([\w.-]+\.\w+)/g);
  for (const file of readdirSync(join(dist, 'assets')).filter((f) => /\.(js|css)$/.test(f))) {
    const text = readFileSync(join(dist, 'assets', file), 'utf8');
    scan(text, /(?:assets\/|["'`(]\.\/)([\w.-]+\.(?:js|mjs|css|wasm|onnx|json|webp|png|svg|woff2?))/g);
  }
  return names;
}

test('npm run build from a clean tree holds every asset the built app fetches: chunks, worker, worklet, wasm and the VAD model', () => {
  const files = new Set(readdirSync(join(dist, 'assets')));
  const named = referencedAssets();
  const missing = [...named].filter((name) => !files.has(name));
  expect(missing, 'named by the build, absent from dist/assets').toEqual([]);
  // What a call fetches is among them, each once.
  for (const kind of [/^silero_vad_legacy-[\w-]+\.onnx$/, /^ort-wasm-simd-threaded-[\w-]+\.wasm$/, /^capture\.worklet-[\w-]+\.js$/, /^vad\.worker-[\w-]+\.js$/]) {
    expect([...named].filter((n) => kind.test(n)), String(kind)).toHaveLength(1);
  }
  // The live chunk and the locales come with it.
  expect([...named].some((n) => /^LiveView-[\w-]+\.js$/.test(n))).toBe(true);
});

test('nginx with docs/nginx.conf sends the headers docs/hosting.md promises: CSP, caching, Content-Encoding, Vary, application/wasm', async () => {
  const get = (path: string, encoding = 'br, gzip') => fetch(`${nginx!.url}${path}`, { headers: { 'Accept-Encoding': encoding } });
  const varies = (res: Response) => (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());

  const page = await get('/25d/demo');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  // The same policy as the stand-in sends: one source for both would let neither drift.
  expect(page.headers.get('content-security-policy')).toBe(APP_CSP);
  expect(page.headers.get('cache-control')).toBe('no-cache');
  expect(page.headers.get('content-encoding')).toBe('br');
  expect(varies(page)).toContain('accept-encoding');

  const assets = readdirSync(join(dist, 'assets'));
  const script = assets.find((f) => /^index-[\w-]+\.js$/.test(f) || /^main-[\w-]+\.js$/.test(f)) ?? assets.find((f) => f.endsWith('.js'))!;
  for (const [encoding, expected] of [
    ['br, gzip', 'br'],
    ['gzip', 'gzip'],
  ] as const) {
    const res = await get(`/25d/assets/${script}`, encoding);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.headers.get('content-encoding')).toBe(expected);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(varies(res)).toContain('accept-encoding');
  }
  const plain = await get(`/25d/assets/${script}`, 'identity');
  expect(plain.headers.get('content-encoding')).toBeNull();
  expect(await plain.text()).toBe(readFileSync(join(dist, 'assets', script), 'utf8'));

  const wasm = await get(`/25d/assets/${assets.find((f) => f.endsWith('.wasm'))!}`);
  expect(wasm.headers.get('content-type')).toBe('application/wasm');
  expect(wasm.headers.get('content-encoding')).toBe('br');
  expect(wasm.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  const model = await get(`/25d/assets/${assets.find((f) => f.endsWith('.onnx'))!}`);
  expect(model.status).toBe(200);
  expect(model.headers.get('content-encoding')).toBe('br');

  // A file that is not there is a 404, never the app's page; a route is the app's page.
  expect((await get('/25d/assets/nope-123.js')).status).toBe(404);
  expect((await get('/25d/nope.js')).status).toBe(404);
  // Every path that answers the app's page carries the CSP: routes, aliases of index.html, escapes.
  for (const path of ['/25d/replay', '/25d/', '/25d/index', '/25d/index.html', '/25d/%69ndex', '/25d//index.html']) {
    const html = await get(path);
    expect(html.headers.get('content-type'), path).toMatch(/^text\/html/);
    expect(html.headers.get('content-security-policy'), path).toBe(APP_CSP);
  }
  // nginx's own error pages there too.
  expect((await get('/25d/nope.js')).headers.get('content-security-policy')).toBe(APP_CSP);
});

test.describe('a session of the hosted product', () => {
  // The question starts 2 s after the microphone opens (Start call), once.
  test.use({ micFile: padded('q-nearest-store.wav', 2) });

  test('behind nginx, with the services at the stand-in: live, a typed question answered, a spoken question in a call answered', async ({ page }) => {
    test.setTimeout(180_000);
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.url()}: ${r.status()}`);
    });
    await backEnd!.delete('/__standin/events');
    // English from the first load: a reload to set it would abort the first load's requests.
    await page.addInitScript(() => localStorage.setItem('lang', 'en'));
    await page.goto(`${nginx!.url}/25d/demo`);
    await goLiveHere(page);

    await typeQuestion(page, 'what are your opening hours');
    await expect(reply(page, 'We are open every day from ten in the morning')).toBeVisible({ timeout: REPLY_MS });
    // The reply is over (nlp_end) before the call starts: the call's question is not spoken over it.
    await expect.poll(async () => signalingFrames(await events(backEnd!), 'out').filter((f) => f.command === 'nlp_end').length, { timeout: REPLY_MS }).toBe(2);

    await startCall(page);
    await expect(ownMessages(page).filter({ hasText: /where is the nearest store/i })).toBeVisible({ timeout: REPLY_MS });
    await expect(reply(page, 'Our nearest store is the flagship store')).toBeVisible({ timeout: REPLY_MS });
    // The recognizer reached the stand-in's speech service by host, across origins.
    expect((await events(backEnd!)).some((e) => e.channel === 'speech')).toBe(true);

    await page.getByRole('button', { name: 'Hang up', exact: true }).click();
    await endChat(page);
    expect(failed, 'requests that failed').toEqual([]);
  });
});

/** The page is open at nginx's origin (support/voice.ts's goLive opens the shared stand-in's): Start chat, then live. */
async function goLiveHere(page: Page) {
  await page.getByRole('button', { name: 'Start chat', exact: true }).click();
  await expectLive(page);
}
