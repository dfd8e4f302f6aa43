/**
 * A tiny static server for the built bench page: GET/HEAD only, files under `dir` served
 * at `base`, on 127.0.0.1 and a free port. The MIME types matter: onnxruntime streams its
 * wasm only when it is served as application/wasm, and module workers and worklets need a
 * JavaScript type.
 *
 * WebSocket upgrades can be passed through to another server (proxyUpgradesTo): the stand-in
 * refuses an upgrade from a page of another origin (docs/contract.md C11), so a page served
 * here reaches its speech service through this server's own origin, as the app does.
 */
import { createReadStream } from 'node:fs';
import { connect } from 'node:net';
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

/**
 * @returns {Promise<{ url: string, close(): Promise<void>, proxyUpgradesTo(origin: string): void }>} url is the
 * page's address (base included).
 */
export async function serveStatic(dir, base = '/') {
  const root = normalize(dir) + sep;
  /** @type {URL | null} */
  let upgradeTarget = null;
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
  // The request goes on as it came (Host and Origin both this server's), byte for byte after its head.
  server.on('upgrade', (req, socket, head) => {
    if (!upgradeTarget) return socket.destroy();
    const upstream = connect(Number(upgradeTarget.port), upgradeTarget.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    const drop = () => {
      upstream.destroy();
      socket.destroy();
    };
    upstream.on('error', drop);
    socket.on('error', drop);
    socket.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}${base}`,
    proxyUpgradesTo(origin) {
      upgradeTarget = new URL(origin);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
