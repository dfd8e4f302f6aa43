/** The entry point as `npm start` runs it: a real process, its stdout lines, health and signals. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lanAddresses } from './lan.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'standin-main-'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>app</title>');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(env: Record<string, string>, args: string[] = []): { child: ChildProcessWithoutNullStreams; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...args], {
    env: { ...process.env, STANDIN_QUIET: '1', STANDIN_PUBLIC_DIR: join(dir, 'dist'), ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('server/main.ts', () => {
  it('prints the demo URL and the listening address once ready, then exits cleanly on SIGTERM', async () => {
    const p = run({ PORT: '0', HOST: '127.0.0.1' });
    try {
      await waitFor(() => p.stdout().includes('listening on'), 90_000);
      const lines = p.stdout().trim().split('\n');
      expect(lines).toHaveLength(2);
      const [, port] = /^Demo: http:\/\/127\.0\.0\.1:(\d+)\/25d\/demo$/.exec(lines[0]!)!;
      expect(lines[1]).toBe(`listening on http://127.0.0.1:${port}`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
    }
  }, 120_000);

  it('refuses a bad PORT or STANDIN_ENV with a clear message', async () => {
    const bad = run({ PORT: 'eighty' });
    expect(await bad.exited).toBe(1);
    expect(bad.stderr()).toMatch(/PORT must be an integer from 0 to 65535, got "eighty"/);
    const env = run({ PORT: '0', STANDIN_ENV: 'staging' });
    expect(await env.exited).toBe(1);
    expect(env.stderr()).toMatch(/STANDIN_ENV must be one of local, test, debug, pre, product/);
    expect(bad.stdout() + env.stdout()).toBe('');
  }, 60_000);

  it('says so when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const p = run({ PORT: String(port) });
      expect(await p.exited).toBe(1);
      expect(p.stderr()).toMatch(new RegExp(`port ${port} on 127.0.0.1 is in use`));
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('--lan: HTTPS on every interface with a certificate made outside the repository, a demo URL per LAN address and a QR code, control endpoints for this machine only', async () => {
    const lan = lanAddresses();
    expect(lan.length, 'this test needs a machine with a LAN address').toBeGreaterThan(0);
    const config = mkdtempSync(join(tmpdir(), 'standin-lan-config-'));
    const p = run({ PORT: '0', HOST: '', STANDIN_TURN: '0', XDG_CONFIG_HOME: config }, ['--lan']);
    try {
      await waitFor(() => p.stdout().includes('listening on'), 90_000);
      const lines = p.stdout().trim().split('\n');
      const [, port] = /^listening on https:\/\/0\.0\.0\.0:(\d+)$/.exec(lines.at(-1)!)!;
      expect(lines.slice(0, lan.length)).toEqual(lan.map((ip) => `Demo: https://${ip}:${port}/25d/demo`));
      expect(lines.slice(lan.length, -1).filter((l) => /[█▀▄]/.test(l)).length).toBeGreaterThan(10);

      // The certificate the phone is shown names the address it used (verified here against that certificate).
      const ca = readFileSync(join(config, 'avatar-chat', 'lan-cert', 'cert.pem'), 'utf8');
      const get = (host: string, path: string, method = 'GET') =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpsRequest({ host, port: Number(port), path, method, ca, headers: { 'content-type': 'application/json' } }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end(method === 'POST' ? JSON.stringify({ uid: 'demo', device_id: 'H5lan', serverName: 'standin' }) : undefined);
        });
      expect(await get(lan[0]!, '/healthz')).toEqual({ status: 200, body: '{"ok":true}' });
      expect(await get('127.0.0.1', '/healthz')).toMatchObject({ status: 200 });
      const route = JSON.parse((await get(lan[0]!, '/get/route', 'POST')).body) as { data: { websockLink: string; srsLink: string } };
      expect(route.data).toMatchObject({ websockLink: `wss://${lan[0]}:${port}/ws/signaling`, srsLink: `https://${lan[0]}:${port}` });
      expect((await get(lan[0]!, '/__standin/events')).status).toBe(403);
      expect((await get('127.0.0.1', '/__standin/events')).status).toBe(200);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
      rmSync(config, { recursive: true, force: true });
    }
  }, 120_000);
});
