/**
 * The signaling endpoint's connection limits: per client address, in total,
 * and the window to join a room.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { clearFaults, setFaults } from '../faults.ts';
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

describe('a handler that throws', () => {
  it('closes only the socket whose frame made it throw (1011); the server and other sockets go on', async () => {
    t = await startTestStandin();
    // A fault injected into the room lookup, as a bug in a handler would be.
    const rooms = t.standin.rooms;
    const get = rooms.get.bind(rooms);
    rooms.get = (id: string) => {
      if (id === 'room_boom') throw new TypeError('injected handler bug');
      return get(id);
    };
    const bad = await open(t.wsUrl, '127.0.0.2');
    const other = await open(t.wsUrl, '127.0.0.3');
    const code = new Promise<number>((resolve) => bad.ws.once('close', (c) => resolve(c)));
    bad.ws.send(JSON.stringify({ type: 'offer_2', room_id: 'room_boom', deviceId: 'H5boom' }));
    expect(await code).toBe(1011);
    const pong = new Promise<unknown>((resolve) => other.ws.once('message', (data) => resolve(JSON.parse(String(data)))));
    other.ws.send(JSON.stringify({ type: 'ping' }));
    expect(await pong).toMatchObject({ msg_type: 'pong' });
    const again = await open(t.wsUrl, '127.0.0.2');
    expect(again.status).toBe(101);
    for (const ws of [other.ws, again.ws]) ws.terminate();
  });

  it('refuses an upgrade whose handling throws with 500, and takes the next one', async () => {
    t = await startTestStandin();
    const rooms = t.standin.rooms;
    const list = rooms.list.bind(rooms);
    let broken = true;
    rooms.list = () => {
      if (broken) throw new TypeError('injected handler bug');
      return list();
    };
    // signaling-down makes the upgrade look at the rooms.
    setFaults(['signaling-down']);
    try {
      expect((await open(t.wsUrl, '127.0.0.2')).status).toBe(500);
    } finally {
      clearFaults();
      broken = false;
    }
    const next = await open(t.wsUrl, '127.0.0.2');
    expect(next.status).toBe(101);
    next.ws.terminate();
  });
});
