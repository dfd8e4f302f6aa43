/**
 * A tiny static server for the built bench page: GET/HEAD only, files under `dir` served
 * at `base`, on 127.0.0.1 and a free port. The MIME types matter: onnxruntime streams its
 * wasm only when it is served as application/wasm, and module workers and worklets need a
 * JavaScript type.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

/** @returns {Promise<{ url: string, close(): Promise<void> }>} url is the page's address (base included). */
export async function serveStatic(dir, base = '/') {
  const root = normalize(dir) + sep;
  const server = createServer(async (req, res) => {
    const fail = (status) => {
      res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405);
    let path;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return fail(400);
    }
    if (!path.startsWith(base)) return fail(404);
    const file = normalize(join(root, path.slice(base.length) || 'index.html'));
    // normalize() resolved any "..": anything outside the build directory is refused.
    if (!file.startsWith(root)) return fail(403);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return fail(404);
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}${base}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
