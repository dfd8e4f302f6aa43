import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** Starts one stand-in on a free port for the whole run and stops it afterwards. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', STANDIN_ENV: 'local', STANDIN_QUIET: process.env.STANDIN_QUIET ?? '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('stand-in did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`stand-in exited early with code ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('stand-in /healthz did not turn 200 within 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  process.env.STANDIN_URL = url;
  return async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    const timeout = setTimeout(() => child.kill('SIGKILL'), 5000);
    await once(child, 'exit');
    clearTimeout(timeout);
  };
}
