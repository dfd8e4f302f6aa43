/**
 * Starts the real stand-in (server/main.ts) as a child process on a free port
 * and waits until GET /healthz answers 200. Shared by Playwright's globalSetup
 * and the benchmarks in bench/ (which load it through tsx's tsImport), so every
 * harness starts the stand-in the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { get as httpsGet } from 'node:https';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface RunningStandin {
  /** Origin of the stand-in, e.g. http://127.0.0.1:41234 (no trailing slash); https:// with --lan. */
  url: string;
  /** The stand-in's process id (its memory is read from /proc/<pid>/status). */
  pid: number;
  /** What it printed on stdout before the listening line (the demo URLs; with --lan, the QR code too). */
  printed: string[];
  /** Stops the stand-in (SIGTERM, then SIGKILL after 5 s); safe to call twice. */
  stop(): Promise<void>;
}

export interface StartStandinOptions {
  /** Extra environment for the stand-in (e.g. STANDIN_MAX_ROOMS). */
  env?: Record<string, string>;
  /** How long to wait for the listening line and then for /healthz (each). Default 60 s. */
  timeoutMs?: number;
  /**
   * Drop the stand-in's info lines (warnings and errors still reach this
   * process's stderr). Default: STANDIN_QUIET from the environment, else quiet.
   */
  quiet?: boolean;
  /** Arguments for server/main.ts, e.g. ['--lan']. */
  args?: string[];
}

/** The repository root: the stand-in resolves dist/ and its assets relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const LISTENING = /listening on (https?:\/\/\S+)/;

function waitForListening(child: ChildProcess, timeoutMs: number, printed: string[]): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stand-in did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`stand-in exited early (${code ?? signal}); see its log lines above`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = LISTENING.exec(line);
      if (!match) printed.push(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
}

/** GET /healthz; over https, the stand-in's self-signed certificate (--lan) is taken as it is: it is our own child. */
function healthy(url: string): Promise<boolean> {
  if (!url.startsWith('https:')) return fetch(`${url}/healthz`).then((r) => r.ok, () => false);
  return new Promise((resolve) => {
    httpsGet(`${url}/healthz`, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on('error', () => resolve(false));
  });
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await healthy(url);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`stand-in /healthz did not turn 200 within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function startStandin(opts: StartStandinOptions = {}): Promise<RunningStandin> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const quiet = opts.quiet ?? (process.env.STANDIN_QUIET ?? '1') === '1';
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', ...(opts.args ?? [])], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      STANDIN_ENV: 'local',
      STANDIN_QUIET: quiet ? '1' : '0',
      // The harnesses play many visitors from one address (127.0.0.1, the phone's), one after
      // another, and a closed page's room lingers up to 10 s: one address may hold every room
      // here. The abuse suite runs the stand-in's own share, which it tests.
      STANDIN_MAX_ROOMS_PER_ADDRESS: '64',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(force);
    })();
    return stopping;
  };

  try {
    const printed: string[] = [];
    const url = await waitForListening(child, timeoutMs, printed);
    await waitForHealth(url, timeoutMs);
    return { url, pid: child.pid!, printed, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
