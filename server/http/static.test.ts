import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CSP, PAGE_CSP } from './static.ts';
import { startTestStandin, type TestStandin } from './testkit.ts';

let dir: string;
let t: TestStandin;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'standin-static-'));
  const dist = join(dir, 'dist');
  const assets = join(dir, 'assets');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  mkdirSync(join(dist, 'models'), { recursive: true });
  mkdirSync(join(assets, 'pages'), { recursive: true });
  mkdirSync(join(assets, 'images'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>app</title><script type="module" src="/25d/assets/index-abc123.js"></script>');
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dist, 'models', 'vad.onnx'), 'onnx');
  // What scripts/precompress.ts writes beside a file: the same bytes, marked so the test sees which one came.
  writeFileSync(join(dist, 'assets', 'app-def456.js'), 'identity');
  writeFileSync(join(dist, 'assets', 'app-def456.js.br'), 'brotli');
  writeFileSync(join(dist, 'assets', 'app-def456.js.gz'), 'gzip');
  writeFileSync(join(dist, 'assets', 'ort-def456.wasm'), 'identity');
  writeFileSync(join(dist, 'assets', 'ort-def456.wasm.br'), 'brotli');
  const html = readFileSync(join(dist, 'index.html'));
  writeFileSync(join(dist, 'index.html.br'), brotliCompressSync(html));
  writeFileSync(join(dist, 'index.html.gz'), gzipSync(html));
  writeFileSync(join(assets, 'pages', 'promo.html'), '<!doctype html><p>promo</p>');
  writeFileSync(join(assets, 'images', 'x.png'), 'png');
  t = await startTestStandin({ publicDir: dist, assetsDir: assets });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the built app under /25d/', () => {
  it('serves index.html for every app route, with the CSP and no-cache', async () => {
    for (const path of ['/25d/demo', '/25d/replay', '/25d/', '/25d/demo?showBitrate=1']) {
      const res = await fetch(t.base + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toBe(APP_CSP);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<title>app</title>');
    }
  });

  it('serves hashed assets as immutable and without the CSP', async () => {
    const res = await fetch(`${t.base}/25d/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-security-policy')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/javascript/);
  });

  it('serves other build files with revalidation', async () => {
    const res = await fetch(`${t.base}/25d/models/vad.onnx`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers a missing file with 404, not the app shell', async () => {
    expect((await fetch(`${t.base}/25d/assets/missing-123.js`)).status).toBe(404);
    expect((await fetch(`${t.base}/25d/nothing.css`)).status).toBe(404);
  });

  it('does not serve files outside the build', async () => {
    const res = await fetch(`${t.base}/25d/..%2f..%2fetc%2fpasswd`);
    expect(await res.text()).not.toContain('root:');
  });

  it('redirects / to the demo and /25d to /25d/', async () => {
    const root = await fetch(`${t.base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/25d/demo');
    const base = await fetch(`${t.base}/25d`, { redirect: 'manual' });
    expect(base.headers.get('location')).toBe('/25d/');
  });

  it('refuses other methods', async () => {
    expect((await fetch(`${t.base}/25d/demo`, { method: 'POST' })).status).toBe(405);
  });

  it('blocks inline script in its CSP', () => {
    const directives = new Map(APP_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)] as const));
    expect(directives.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
  });
});

/** A GET whose answer is not decoded (fetch would decode it): headers and body as sent. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks).toString() }));
    }).on('error', reject);
  });
}

describe('every path that answers HTML', () => {
  it('carries the page\'s CSP, however the path names the file: an alias, an escape, a precompressed copy', async () => {
    const app = ['/25d/', '/25d/demo', '/25d/replay', '/25d/index', '/25d/index/', '/25d/index.html', '/25d/%69ndex', '/25d/index.html.br', '/25d/index.html.gz', '/25d/demo/x/y'];
    const pages = ['/assets-standin/pages/promo.html', '/assets-standin/pages/promo', '/assets-standin/pages/%70romo'];
    for (const [paths, csp] of [
      [app, APP_CSP],
      [pages, PAGE_CSP],
    ] as const) {
      for (const path of paths) {
        for (const encoding of ['identity', 'br, gzip', 'gzip']) {
          const res = await rawGet(t.base + path, { 'accept-encoding': encoding });
          expect(res.headers['content-type'], `${path} (${encoding})`).toMatch(/^text\/html/);
          expect(res.headers['content-security-policy'], `${path} (${encoding})`).toBe(csp);
        }
      }
    }
  });
});

describe('precompressed files', () => {
  it('sends brotli, then gzip, then the file itself, as the client accepts, always with Vary', async () => {
    const url = `${t.base}/25d/assets/app-def456.js`;
    const cases = [
      { accept: 'br, gzip', encoding: 'br', body: 'brotli' },
      { accept: 'gzip, deflate', encoding: 'gzip', body: 'gzip' },
      { accept: 'identity', encoding: undefined, body: 'identity' },
    ];
    for (const c of cases) {
      const res = await rawGet(url, { 'accept-encoding': c.accept });
      expect(res.headers['content-encoding'], c.accept).toBe(c.encoding);
      expect(res.body, c.accept).toBe(c.body);
      expect(res.headers.vary, c.accept).toBe('Accept-Encoding');
      expect(res.headers['content-type'], c.accept).toMatch(/javascript/);
      expect(res.headers['cache-control'], c.accept).toBe('public, max-age=31536000, immutable');
    }
    expect((await rawGet(url, {})).body).toBe('identity');
  });

  it('keeps the wasm type on a compressed wasm (streaming compilation needs it)', async () => {
    const res = await rawGet(`${t.base}/25d/assets/ort-def456.wasm`, { 'accept-encoding': 'br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toBe('application/wasm');
    // No gzip copy: a gzip-only client gets the file.
    const plainWasm = await rawGet(`${t.base}/25d/assets/ort-def456.wasm`, { 'accept-encoding': 'gzip' });
    expect(plainWasm.headers['content-encoding']).toBeUndefined();
    expect(plainWasm.body).toBe('identity');
  });
});

describe('the demo assets under /assets-standin/', () => {
  it('serves images cross-origin readable and cacheable', async () => {
    const res = await fetch(`${t.base}/assets-standin/images/x.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('serves the promo page with its own script-free CSP', async () => {
    const res = await fetch(`${t.base}/assets-standin/pages/promo.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("default-src 'none'");
  });

  it('answers a missing asset with 404', async () => {
    expect((await fetch(`${t.base}/assets-standin/images/none.png`)).status).toBe(404);
  });

  it('supports range requests (video seeking)', async () => {
    const res = await fetch(`${t.base}/assets-standin/images/x.png`, { headers: { range: 'bytes=0-1' } });
    expect(res.status).toBe(206);
    expect(await res.text()).toBe('pn');
  });
});

describe('without a build', () => {
  it('explains that the app is not built, with 503', async () => {
    const bare = await startTestStandin({ publicDir: join(dir, 'no-dist') });
    try {
      const res = await fetch(`${bare.base}/25d/demo`);
      expect(res.status).toBe(503);
      expect(await res.text()).toMatch(/npm run build:local/);
      const health = await fetch(`${bare.base}/healthz`);
      expect(health.status).toBe(503);
    } finally {
      await bare.close();
    }
  });
});
