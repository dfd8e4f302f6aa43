/**
 * The abuse suite's stand-in (tests/integration/abuse*.test.ts): the real one
 * as a child process, and running an input beside a visitor's session while
 * the stand-in's resident memory is sampled.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { rssMb, samplePeak } from './processProbe.ts';
import { startStandin, type RunningStandin } from './standin.ts';
import { visitSession, type VisitorResult } from './visitor.ts';

export interface AbuseStandin {
  standin: RunningStandin;
  wsUrl: string;
  /**
   * Runs `input` beside a visitor's session; the stand-in's peak RSS growth (MB) over the whole
   * run. `input` is given the visitor's end, for an input that must last as long as the visit.
   */
  underInput<T>(name: string, input: (visitorDone: Promise<unknown>) => Promise<T>): Promise<{ result: T; growthMb: number; visitor: VisitorResult }>;
  /** A signaling upgrade from `localAddress`: the open socket (101) or the refusal's status. */
  socketFrom(localAddress: string, headers?: Record<string, string>, path?: string): Promise<{ ws: WebSocket; status: number }>;
  post(path: string, body: string, headers?: Record<string, string>): Promise<Response>;
  /** A request from another address of this machine (another device, as the stand-in sees it), any Host. */
  requestFrom(localAddress: string, method: string, path: string, opts?: { body?: string; headers?: Record<string, string> }): Promise<RawAnswer>;
  /** start_live as `deviceId`, from `localAddress` (default the visitor's 127.0.0.1). */
  startRoom(deviceId: string, localAddress?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** The name the abuse stand-in is told to serve (STANDIN_ALLOWED_HOSTS), as a machine's .local name would be. */
export const ALLOWED_NAME = 'demo-box.local';

/**
 * `env`: more settings for the stand-in (e.g. STANDIN_ROOM_IDLE_MS). `lan`: as `npm start -- --lan`
 * (HTTPS on every interface, the media on every LAN address plus loopback, werift in full ICE),
 * its certificate in a folder of this run's; the suite still talks to it over its loopback.
 */
export async function startAbuseStandin(env: Record<string, string> = {}, opts: { lan?: boolean } = {}): Promise<AbuseStandin> {
  // /healthz waits for a built app; the suite needs none, so a stub stands in for dist/.
  const publicDir = mkdtempSync(join(tmpdir(), 'abuse-app-'));
  writeFileSync(join(publicDir, 'index.html'), '<!doctype html><title>stub</title>');
  const lanEnv: Record<string, string> = opts.lan ? { HOST: '0.0.0.0', XDG_CONFIG_HOME: join(publicDir, 'config') } : {};
  let standin: RunningStandin;
  try {
    standin = await startStandin({
      // '' leaves the stand-in its own share of rooms per address (server/main.ts reads '' as unset).
      env: { STANDIN_PUBLIC_DIR: publicDir, STANDIN_TURN: '0', STANDIN_ALLOWED_HOSTS: ALLOWED_NAME, STANDIN_MAX_ROOMS_PER_ADDRESS: '', ...lanEnv, ...env },
      ...(opts.lan ? { args: ['--lan'] } : {}),
    });
  } catch (err) {
    rmSync(publicDir, { recursive: true, force: true });
    throw err;
  }
  if (opts.lan) standin = { ...standin, url: standin.url.replace('0.0.0.0', '127.0.0.1') };
  const wsUrl = `${standin.url.replace('http', 'ws')}/ws/signaling`;
  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Response> =>
    fetch(standin.url + path, { method: 'POST', headers, body });

  const url = new URL(standin.url);
  // Under --lan, over TLS with the stand-in's own self-signed certificate (our own child).
  const request = url.protocol === 'https:' ? https.request : http.request;
  const requestFrom: AbuseStandin['requestFrom'] = (localAddress, method, path, options = {}) =>
    new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, method, localAddress, headers: options.headers ?? {}, agent: false, rejectUnauthorized: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(options.body);
    });

  return {
    standin,
    wsUrl,
    async underInput(name, input) {
      const before = rssMb(standin.pid);
      const peak = samplePeak(() => rssMb(standin.pid));
      const visit = visitSession(standin.url, { timeoutMs: 45_000 });
      const visitorDone = visit.then(
        () => undefined,
        () => undefined,
      );
      const [result, visitor] = await Promise.all([input(visitorDone), visit]).finally(() => peak.stop());
      const growthMb = Math.round(peak.max - before);
      process.stdout.write(
        `[abuse] ${name}: RSS ${Math.round(before)} MB before, peak +${growthMb} MB; visitor first frame ${visitor.firstFrameMs} ms, answer ${visitor.answerMs} ms, spoken ${visitor.spokenMs} ms\n`,
      );
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
    requestFrom,
    async startRoom(deviceId, localAddress = '127.0.0.1') {
      const body = JSON.stringify({ app_id: 'demo', uid: 'demo', device_id: deviceId });
      const res = await requestFrom(localAddress, 'POST', '/start_live', { body, headers: { 'content-type': 'application/json' } });
      const json = JSON.parse(res.text) as { room_id?: string };
      if (!json.room_id) throw new Error(`start_live: ${res.text}`);
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
