/**
 * Starts the real stand-in (server/main.ts) as a child process on a free port
 * and waits until GET /healthz answers 200. Shared by Playwright's globalSetup
 * and the benchmarks in bench/ (which load it through tsx's tsImport), so every
 * harness starts the stand-in the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface RunningStandin {
  /** Origin of the stand-in, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The stand-in's process id (its memory is read from /proc/<pid>/status). */
  pid: number;
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
}

/** The repository root: the stand-in resolves dist/ and its assets relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const LISTENING = /listening on (http:\/\/\S+)/;

function waitForListening(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stand-in did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`stand-in exited early (${code ?? signal}); see its log lines above`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = LISTENING.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`stand-in /healthz did not turn 200 within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function startStandin(opts: StartStandinOptions = {}): Promise<RunningStandin> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const quiet = opts.quiet ?? (process.env.STANDIN_QUIET ?? '1') === '1';
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      STANDIN_ENV: 'local',
      STANDIN_QUIET: quiet ? '1' : '0',
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
    const url = await waitForListening(child, timeoutMs);
    await waitForHealth(url, timeoutMs);
    return { url, pid: child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
