import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SpeechService } from './app.ts';
import { startRoom, startTestStandin } from './http/testkit.ts';
import { listEvents } from './events.ts';

/** A raw upgrade request, to see exactly how an unclaimed path is refused. */
function rawUpgrade(base: string, path: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (c) => (data += c.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

describe('GET /healthz', () => {
  it('answers 503 until the assets are made, then 200 {"ok":true}', async () => {
    let finish!: () => void;
    const t = await startTestStandin({ prepareAssets: () => new Promise<void>((r) => (finish = r)) });
    try {
      const before = await fetch(`${t.base}/healthz`);
      expect(before.status).toBe(503);
      expect(await before.json()).toEqual({ ok: false, waiting: ['assets'] });
      finish();
      await t.standin.ready;
      const after = await fetch(`${t.base}/healthz`);
      expect(after.status).toBe(200);
      expect(await after.text()).toBe('{"ok":true}');
    } finally {
      await t.close();
    }
  });

  it('stays 503 and says why when the assets cannot be made', async () => {
    const t = await startTestStandin({ prepareAssets: () => Promise.reject(new Error('ffmpeg missing')) });
    try {
      await expect(t.standin.ready).rejects.toThrow('ffmpeg missing');
      const res = await fetch(`${t.base}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ok: false, waiting: ['assets failed: ffmpeg missing'] });
    } finally {
      await t.close();
    }
  });
});

describe('WebSocket upgrades', () => {
  it('hands the speech service the upgrades it claims and refuses unknown paths with 404', async () => {
    const seen: string[] = [];
    const speech: SpeechService = {
      handleUpgrade(req, socket) {
        if (!req.url?.startsWith('/speech/')) return false;
        seen.push(req.url);
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
        return true;
      },
      close: async () => {},
    };
    const t = await startTestStandin({ speech });
    try {
      const claimed = await rawUpgrade(t.base, '/speech/recognition/conversation/cognitiveservices/v1?language=en-US');
      expect(claimed).toMatch(/^HTTP\/1\.1 401/);
      expect(seen).toEqual(['/speech/recognition/conversation/cognitiveservices/v1?language=en-US']);
      expect(await rawUpgrade(t.base, '/elsewhere')).toMatch(/^HTTP\/1\.1 404/);
    } finally {
      await t.close();
    }
  });

  it('opens the sockets to pages of an allowed origin (an app hosted elsewhere), and still refuses any other', async () => {
    const t = await startTestStandin({ allowedOrigins: ['https://chat.example.com'] });
    const opened = (origin: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(t.wsUrl, { headers: { Origin: origin } });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      });
    try {
      expect(await opened('https://chat.example.com')).toBe(101);
      expect(await opened('https://evil.example.com')).toBe(403);
    } finally {
      await t.close();
    }
  });

  it('survives a speech service that throws', async () => {
    const speech: SpeechService = {
      handleUpgrade() {
        throw new Error('boom');
      },
      close: async () => {},
    };
    const t = await startTestStandin({ speech });
    try {
      expect(await rawUpgrade(t.base, '/speech/x')).toMatch(/^HTTP\/1\.1 500/);
      expect((await fetch(`${t.base}/healthz`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('close', () => {
  it('closes every room, socket and the speech service, and is idempotent', async () => {
    let speechClosed = 0;
    const t = await startTestStandin({ speech: { handleUpgrade: () => false, close: async () => void speechClosed++ } });
    const roomId = await startRoom(t.base);
    const media = t.medias.get(roomId)!;
    const ws = new WebSocket(t.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise((r) => ws.once('close', r));
    await Promise.all([t.close(), t.close()]);
    await closed;
    expect(media.closed).toBe(true);
    expect(t.standin.rooms.size).toBe(0);
    expect(speechClosed).toBe(1);
    expect(t.standin.server.listening).toBe(false);
  });

  it('releases a start_live held by start-live-slow', async () => {
    const { setFaults, clearFaults } = await import('./faults.ts');
    const t = await startTestStandin({ slowStartMs: 60_000 });
    setFaults(['start-live-slow']);
    try {
      const read = () => listEvents().filter((e) => e.channel === 'http' && e.dir === 'in' && (e.body as { path?: string }).path === '/start_live').length;
      const before = read();
      const pending = fetch(`${t.base}/start_live`, { method: 'POST', body: JSON.stringify({ app_id: 'a', uid: 'demo', device_id: 'd' }) }).catch(() => 'closed');
      // Held once the stand-in has read it.
      await expect.poll(read).toBe(before + 1);
      // A close that waited for the hold would take its minute, past this test's timeout.
      await t.close();
      expect(await pending).toBe('closed');
      expect(t.standin.rooms.size).toBe(0);
    } finally {
      clearFaults();
    }
  });
});
