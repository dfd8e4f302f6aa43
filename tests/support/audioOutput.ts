/**
 * An audio output device for the browsers under test: a private PulseAudio daemon with
 * one null sink, started before the browsers and stopped after them.
 *
 * Without an output device Chromium's echo canceller works from a broken playout
 * reference and garbles the microphone while the avatar speaks, and Firefox keeps every
 * AudioContext suspended: a setting no phone has. The daemon runs in its own runtime
 * folder with its own socket (never the machine's session daemon), and browsers find it
 * through PULSE_SERVER, which Playwright's workers and the browsers they launch inherit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AudioOutput {
  /** The value for PULSE_SERVER, e.g. unix:/tmp/avatar-pulse-x/native. */
  server: string;
  /** The null sink's name: the browsers' default output. */
  sink: string;
  stop(): Promise<void>;
}

export const SINK = 'avatar_test_output';

/** pactl against our daemon; throws with its message when it fails. */
export function pactl(server: string, ...args: string[]): string {
  const result = spawnSync('pactl', args, { env: { ...process.env, PULSE_SERVER: server }, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`pactl ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

/**
 * Sets a sink input's volume to `db` decibels, absolutely. pactl reads a volume that starts
 * with + or − as a change from the current one, so `-10dB` after `-20dB` gives −30 dB; a
 * linear factor (10^(dB/20)) has no sign and is always absolute.
 */
export function setSinkInputGainDb(server: string, input: string, db: number): void {
  pactl(server, 'set-sink-input-volume', input, (10 ** (db / 20)).toFixed(6));
}

export async function startAudioOutput(timeoutMs = 15_000): Promise<AudioOutput> {
  const dir = mkdtempSync(join(tmpdir(), 'avatar-pulse-'));
  const socket = join(dir, 'native');
  const server = `unix:${socket}`;
  const child = spawn(
    'pulseaudio',
    [
      '--daemonize=no',
      '--use-pid-file=no',
      '--exit-idle-time=-1',
      '--disallow-exit',
      '-n', // no default.pa: only the modules below
      '--log-target=stderr',
      '--log-level=error',
      '-L',
      `module-native-protocol-unix socket=${socket} auth-anonymous=1`,
      '-L',
      `module-null-sink sink_name=${SINK} sink_properties=device.description=avatar-test-output`,
    ],
    // Its own runtime folder and home, so it neither finds nor disturbs another daemon.
    { env: { ...process.env, XDG_RUNTIME_DIR: dir, HOME: dir, PULSE_RUNTIME_PATH: dir }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let failure: Error | null = null;
  child.once('error', (error) => (failure = error));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (failure || child.exitCode !== null) {
      await stop();
      throw new Error(`PulseAudio did not start (${failure ? String(failure) : `exit ${child.exitCode}`}); install Debian's pulseaudio and pulseaudio-utils`);
    }
    if (existsSync(socket)) {
      try {
        pactl(server, 'set-default-sink', SINK);
        return { server, sink: SINK, stop };
      } catch {
        // Not answering yet.
      }
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`PulseAudio did not answer within ${timeoutMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
