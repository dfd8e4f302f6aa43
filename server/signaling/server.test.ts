/**
 * The signaling endpoint's connection limits: per client address, in total,
 * and the window to join a room.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestStandin, type TestStandin } from '../http/testkit.ts';

let t: TestStandin | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

function open(url: string, localAddress: string, origin?: string): Promise<{ ws: WebSocket; status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress, ...(origin ? { origin } : {}) });
    ws.once('open', () => resolve({ ws, status: 101 }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ ws, status: res.statusCode ?? 0 });
    });
    ws.once('error', reject);
  });
}

describe('signaling connection limits', () => {
  it('refuses an address beyond its cap with 429 and everyone beyond the total with 503', async () => {
    t = await startTestStandin({ signaling: { limits: { perAddress: 2, total: 3, joinTimeoutMs: 60_000 } } });
    const a = [await open(t.wsUrl, '127.0.0.2'), await open(t.wsUrl, '127.0.0.2'), await open(t.wsUrl, '127.0.0.2')];
    expect(a.map((r) => r.status)).toEqual([101, 101, 429]);
    const b = [await open(t.wsUrl, '127.0.0.3'), await open(t.wsUrl, '127.0.0.3')];
    expect(b.map((r) => r.status)).toEqual([101, 503]);
    for (const r of [...a, ...b]) r.ws.terminate();
  });

  it('closes a socket that joins no room within the window with 1008', async () => {
    t = await startTestStandin({ signaling: { limits: { joinTimeoutMs: 200 } } });
    const { ws } = await open(t.wsUrl, '127.0.0.1');
    const code = await new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    expect(code).toBe(1008);
  });

  it('refuses an upgrade from another origin with 403 and accepts its own', async () => {
    t = await startTestStandin();
    expect((await open(t.wsUrl, '127.0.0.1', 'http://evil.example')).status).toBe(403);
    const own = await open(t.wsUrl, '127.0.0.1', t.base);
    expect(own.status).toBe(101);
    own.ws.terminate();
  });
});
