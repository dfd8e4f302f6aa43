/**
 * Static files: the built app (Vite's dist/, base /25d/) and the generated demo
 * assets (/assets-standin/). sirv does the file serving (ranges, ETags, MIME);
 * this module maps URL prefixes, the SPA fallback, caching and CSP.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import sirv from 'sirv';

/**
 * The app's Content-Security-Policy, sent with every HTML response of the app, by whatever
 * path (cspForDocuments).
 * - script-src 'self' 'wasm-unsafe-eval': no inline or eval'd script; the VAD
 *   runs ONNX models in WebAssembly, which needs wasm compilation.
 * - worker-src 'self' blob:: the VAD worker and the audio worklet; some
 *   libraries start workers from blob: URLs.
 * - connect-src ws: wss: http: https:: the real services (signaling, speech,
 *   media server) live on other hosts, whose names this build does not know.
 * - img-src / media-src / frame-src: replies carry images, videos and web pages
 *   from anywhere; blob: for the media streams' object URLs and exports.
 * - style-src 'unsafe-inline': React style attributes.
 * - frame-ancestors 'none': no other site may show the app in a frame of its own (a page
 *   that frames it could overlay the controls and collect taps: clickjacking).
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "connect-src 'self' ws: wss: http: https:",
  "img-src 'self' http: https: data: blob:",
  "media-src 'self' http: https: blob:",
  'frame-src http: https:',
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The generated promo page runs no script at all, and only the app (same origin) shows it in its chat's frame. */
export const PAGE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

export const APP_BASE = '/25d';
export const ASSETS_BASE = '/assets-standin';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A path that names a file (has an extension) or sits under assets/: never the SPA shell. */
const LOOKS_LIKE_FILE = /(^\/assets\/)|(\.[A-Za-z0-9]{1,8}$)/;

export interface StaticOptions {
  /** The built app; null serves no app. */
  publicDir: string | null;
  assetsDir: string;
}

export interface StaticHandler {
  /** Serves the request if its path is the app's or the assets'; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** The built app is present (or no app is served). */
  appReady(): boolean;
}

/** Media types a browser runs as a document (scripts and all). */
const DOCUMENT_TYPE = /^\s*(text\/html|application\/xhtml\+xml|image\/svg\+xml)\b/i;

/**
 * Sends `csp` with the answer if it is a document, whatever path led to it: sirv answers
 * `/index`, `/%69ndex` and `/index/` with index.html, `/index.html.br` with HTML too, so the
 * path alone cannot tell. Decided when the head is written, from the answer's Content-Type.
 */
function cspForDocuments(res: ServerResponse, csp: string): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a)) as Record<string, unknown> | undefined;
    const typeKey = headers && Object.keys(headers).find((k) => k.toLowerCase() === 'content-type');
    const type = String((typeKey ? headers[typeKey] : undefined) ?? res.getHeader('content-type') ?? '');
    if (DOCUMENT_TYPE.test(type)) res.setHeader('Content-Security-Policy', csp);
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

/** Replaces the request's URL by its path below `prefix`, keeping the query. */
function strip(req: IncomingMessage, prefix: string): void {
  const url = req.url ?? '/';
  req.url = url.slice(prefix.length) || '/';
}

export function createStaticHandler(opts: StaticOptions): StaticHandler {
  const { publicDir } = opts;
  const indexFile = publicDir ? join(publicDir, 'index.html') : null;

  // dev mode looks files up per request, so a rebuild of dist/ is picked up without a restart.
  // brotli/gzip: the build's precompressed NAME.br / NAME.gz (scripts/precompress.ts), chosen by
  // Accept-Encoding, with Vary: Accept-Encoding on every answer; a client that accepts neither gets the file.
  const app = publicDir
    ? sirv(publicDir, {
        dev: true,
        etag: true,
        brotli: true,
        gzip: true,
        setHeaders(res, pathname) {
          if (pathname.startsWith('/assets/')) {
            res.setHeader('Cache-Control', IMMUTABLE);
          } else {
            res.setHeader('Cache-Control', 'no-cache');
          }
        },
      })
    : null;

  const assets = sirv(opts.assetsDir, {
    dev: true,
    etag: true,
    setHeaders(res, pathname) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (pathname.endsWith('.html')) {
        res.setHeader('Cache-Control', 'no-cache');
      } else {
        res.setHeader('Cache-Control', 'public, max-age=3600');
      }
    },
  });

  function serveApp(req: IncomingMessage, res: ServerResponse): void {
    if (!app || !indexFile) return plain(res, 404, 'this stand-in serves no app');
    if (!existsSync(indexFile)) {
      return plain(res, 503, 'The app is not built yet: run `npm run build:local` (npm start does it).', { 'Retry-After': '5' });
    }
    strip(req, APP_BASE);
    cspForDocuments(res, APP_CSP);
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    app(req, res, () => {
      if (LOOKS_LIKE_FILE.test(pathname)) return plain(res, 404, 'not found');
      // Every other path below /25d/ is a route of the single-page app.
      req.url = '/index.html';
      app(req, res, () => plain(res, 404, 'not found'));
    });
  }

  return {
    handle(req, res) {
      const path = (req.url ?? '/').split('?')[0]!;
      const method = req.method ?? 'GET';
      const isApp = path === APP_BASE || path.startsWith(`${APP_BASE}/`);
      const isAssets = path.startsWith(`${ASSETS_BASE}/`);
      if (!isApp && !isAssets && path !== '/') return false;
      if (method !== 'GET' && method !== 'HEAD') {
        plain(res, 405, `method ${method} not allowed`, { Allow: 'GET, HEAD' });
        return true;
      }
      if (path === '/') {
        res.writeHead(302, { Location: `${APP_BASE}/demo` });
        res.end();
      } else if (path === APP_BASE) {
        res.writeHead(301, { Location: `${APP_BASE}/` });
        res.end();
      } else if (isApp) {
        serveApp(req, res);
      } else {
        strip(req, ASSETS_BASE);
        cspForDocuments(res, PAGE_CSP);
        assets(req, res, () => plain(res, 404, 'not found'));
      }
      return true;
    },
    appReady: () => indexFile === null || existsSync(indexFile),
  };
}
