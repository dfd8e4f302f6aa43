/**
 * Every helper process of the media pipeline (ffmpeg, espeak-ng) is spawned here, so that none
 * outlives the stand-in: they are killed when Node exits, and their stdin is a pipe, so even
 * if Node dies without running exit handlers they read end-of-file and stop by themselves.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createLogger } from '../log.ts';

const log = createLogger('media');
const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL is the only thing that is sure to land.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** Spawns with an argument array (never a shell) and keeps the child on the kill list until it exits. */
export function spawnTracked(command: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  installExitHook();
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', (err) => {
    live.delete(child);
    log.error('helper process failed to start', { command, error: err.message });
  });
  // A child that died makes writes to its stdin fail with EPIPE; that is reported by 'exit'.
  child.stdin.on('error', () => undefined);
  return child;
}

export function hasExited(child: ChildProcessWithoutNullStreams): boolean {
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

/** Closes stdin, asks politely with SIGTERM, and uses SIGKILL after `graceMs`. Resolves once it is gone. */
export function stopChild(child: ChildProcessWithoutNullStreams, graceMs = 1000): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin.end();
    child.kill('SIGTERM');
  });
}

/** PIDs of helpers still running; tests use it to prove nothing leaks. */
export function trackedChildPids(): number[] {
  return [...live].flatMap((c) => (c.pid === undefined ? [] : [c.pid]));
}
