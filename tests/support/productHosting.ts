/**
 * The product build as a deployment meets it: built from a clean tree (what a fresh clone
 * holds, nothing the preflight or an earlier build left behind), then served by Debian's
 * nginx with the repository's own configuration (docs/nginx.conf), only `listen` and `root`
 * replaced. Used by tests/e2e/hosting.spec.ts.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from './standin.ts';

export const NGINX = '/usr/sbin/nginx';
const NGINX_MODULES = '/etc/nginx/modules-enabled';
/** Where Debian's module lines (`load_module modules/...`) point, relative to nginx's prefix. */
const NGINX_MODULE_FILES = '/usr/lib/nginx/modules';
const MIME_TYPES = '/etc/nginx/mime.types';

/** Why nginx cannot run here, or null. */
export function nginxUnavailable(): string | null {
  if (!existsSync(NGINX)) return 'nginx is not installed (the preflight installs nginx and libnginx-mod-http-brotli-static)';
  if (!existsSync(join(NGINX_MODULES, '50-mod-http-brotli-static.conf'))) return 'the brotli module of nginx is not installed (libnginx-mod-http-brotli-static)';
  return null;
}

/** A free TCP port on 127.0.0.1 (bound and released at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Copies what a clone of this checkout would hold (tracked files and new files that are not
 * ignored, as they are now) into a new folder, with this checkout's node_modules linked in.
 * Nothing ignored comes along: no dist/, no models or fixtures the preflight made.
 */
export function cleanTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'avatar-clean-'));
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' });
  for (const file of listed.split('\0').filter(Boolean)) {
    const from = join(REPO_ROOT, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(from, join(dir, file));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  // The compression cache is keyed by content: sharing it saves the wasm's minute of brotli.
  mkdirSync(join(REPO_ROOT, '.cache', 'precompress'), { recursive: true });
  mkdirSync(join(dir, '.cache'));
  symlinkSync(join(REPO_ROOT, '.cache', 'precompress'), join(dir, '.cache', 'precompress'));
  return dir;
}

/** `npm run build`, as docs/hosting.md gives it, in `dir` with `env` (the VITE_* variables). Returns dist/. */
export function buildProduct(dir: string, env: Record<string, string>): string {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { build: string } };
  if (pkg.scripts.build !== 'vite build --mode product') throw new Error(`npm run build is "${pkg.scripts.build}": this harness runs what it names`);
  const build = spawnSync(process.execPath, [join(dir, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--mode', 'product', '--logLevel', 'warn'], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
  return join(dir, 'dist');
}

export interface RunningNginx {
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves `dist` below /25d/ with docs/nginx.conf in an nginx of its own (its own prefix,
 * pid and logs; Debian's modules and mime.types), on `port` of 127.0.0.1.
 */
export async function startNginx(dist: string, port: number): Promise<RunningNginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'avatar-nginx-'));
  const root = join(prefix, 'www');
  mkdirSync(root);
  symlinkSync(NGINX_MODULE_FILES, join(prefix, 'modules'));
  cpSync(dist, join(root, '25d'), { recursive: true });
  const site = readFileSync(join(REPO_ROOT, 'docs', 'nginx.conf'), 'utf8');
  const served = site
    .replace(/^(\s*)listen\s+[^;]+;.*$/m, `$1listen 127.0.0.1:${port};`)
    .replace(/^(\s*)root\s+[^;]+;.*$/m, `$1root ${root};`);
  if (!served.includes(`listen 127.0.0.1:${port};`) || !served.includes(`root ${root};`)) throw new Error('docs/nginx.conf has no listen or root line to replace');
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    [
      `include ${NGINX_MODULES}/*.conf;`,
      'worker_processes 1;',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${join(prefix, 'error.log')} warn;`,
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'events { worker_connections 256; }',
      'http {',
      `  include ${MIME_TYPES};`,
      '  default_type application/octet-stream;',
      `  access_log ${join(prefix, 'access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(prefix, `${t}_temp`)};`),
      served,
      '}',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(`${url}/25d/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not answer within 10 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
