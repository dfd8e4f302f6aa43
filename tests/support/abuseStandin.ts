/**
 * The abuse suite's stand-in (tests/integration/abuse*.test.ts): the real one
 * as a child process, and running an input beside a visitor's session while
 * the stand-in's resident memory is sampled.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { rssMb, samplePeak } from './processProbe.ts';
import { startStandin, type RunningStandin } from './standin.ts';
import { visitSession, type VisitorResult } from './visitor.ts';

export interface AbuseStandin {
  standin: RunningStandin;
  wsUrl: string;
  /** Runs `input` beside a visitor's session; the stand-in's peak RSS growth (MB) over the whole run. */
  underInput<T>(name: string, input: () => Promise<T>): Promise<{ result: T; growthMb: number; visitor: VisitorResult }>;
  /** A signaling upgrade from `localAddress`: the open socket (101) or the refusal's status. */
  socketFrom(localAddress: string, headers?: Record<string, string>, path?: string): Promise<{ ws: WebSocket; status: number }>;
  post(path: string, body: string, headers?: Record<string, string>): Promise<Response>;
  startRoom(deviceId: string): Promise<string>;
  stop(): Promise<void>;
}

/** `env`: more settings for the stand-in (e.g. STANDIN_ROOM_IDLE_MS). */
export async function startAbuseStandin(env: Record<string, string> = {}): Promise<AbuseStandin> {
  // /healthz waits for a built app; the suite needs none, so a stub stands in for dist/.
  const publicDir = mkdtempSync(join(tmpdir(), 'abuse-app-'));
  writeFileSync(join(publicDir, 'index.html'), '<!doctype html><title>stub</title>');
  let standin: RunningStandin;
  try {
    standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: publicDir, STANDIN_TURN: '0', ...env } });
  } catch (err) {
    rmSync(publicDir, { recursive: true, force: true });
    throw err;
  }
  const wsUrl = `${standin.url.replace('http', 'ws')}/ws/signaling`;
  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Response> =>
    fetch(standin.url + path, { method: 'POST', headers, body });

  return {
    standin,
    wsUrl,
    async underInput(name, input) {
      const before = rssMb(standin.pid);
      const peak = samplePeak(() => rssMb(standin.pid));
      const [result, visitor] = await Promise.all([input(), visitSession(standin.url, { timeoutMs: 45_000 })]).finally(() => peak.stop());
      const growthMb = Math.round(peak.max - before);
      process.stdout.write(`[abuse] ${name}: RSS ${Math.round(before)} MB before, peak +${growthMb} MB; visitor first frame ${visitor.firstFrameMs} ms, answer ${visitor.answerMs} ms\n`);
      return { result, growthMb, visitor };
    },
    socketFrom(localAddress, headers = {}, path = '/ws/signaling') {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(`${standin.url.replace('http', 'ws')}${path}`, { localAddress, headers });
        ws.once('open', () => resolve({ ws, status: 101 }));
        ws.once('unexpected-response', (_req, res) => {
          resolve({ ws, status: res.statusCode ?? 0 });
          res.resume();
        });
        ws.once('error', reject);
      });
    },
    post,
    async startRoom(deviceId) {
      const res = await post('/start_live', JSON.stringify({ app_id: 'demo', uid: 'demo', device_id: deviceId }));
      const json = (await res.json()) as { room_id?: string };
      if (!json.room_id) throw new Error(`start_live: ${JSON.stringify(json)}`);
      return json.room_id;
    },
    async stop() {
      await standin.stop();
      rmSync(publicDir, { recursive: true, force: true });
    },
  };
}

/** Resolves with the close code once `ws` is closed. */
export function closed(ws: WebSocket): Promise<number> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve(-1);
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}
