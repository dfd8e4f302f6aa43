/**
 * The TURN relay of the `local` environment: Debian's coturn (`turnserver`), run as a child
 * of the stand-in so that the demo's media can go through a real relay, as the
 * specification's media does ("a relay (TURN) server is used for media").
 *
 * - UDP only, on the HTTP server's own port number: the app names it as
 *   `turn:{page host}:{page port}?transport=udp`, so a build needs no per-run port and
 *   two stand-ins on two ports run side by side. (coturn's TCP listener is off: that
 *   port is the HTTP server's.)
 * - Long-term credentials, fixed (TURN_USERNAME / TURN_CREDENTIAL): the relay is a local
 *   test double bound to the stand-in's own address, not a secret.
 * - Loopback peers are allowed: the stand-in's media answers from 127.0.0.1.
 * - It cannot outlive the stand-in: `setpriv --pdeathsig SIGKILL` has the kernel kill it
 *   when the stand-in dies, however it dies; `close()` stops it politely first.
 * - Where coturn is missing, or does not answer a STUN binding request within 5 s, the
 *   stand-in says so and runs without a relay (start() resolves null).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from './log.ts';

export const TURN_USERNAME = 'standin';
export const TURN_CREDENTIAL = 'standin-relay';
export const TURN_REALM = 'standin';
const READY_TIMEOUT_MS = 5_000;

export interface TurnRelay {
  /** The address and UDP port coturn listens on. */
  host: string;
  port: number;
  /** The coturn process's id (tests check that it is gone after close). */
  pid: number;
  close(): Promise<void>;
}

export interface TurnOptions {
  /** The stand-in's HTTP host: 127.0.0.1 by default, or 0.0.0.0 / a LAN address. */
  host: string;
  port: number;
  log: Logger;
  /** The binary; default `turnserver` on PATH. */
  command?: string;
}

/** A STUN Binding request (RFC 5389): type 0x0001, no attributes, the magic cookie, a random transaction id. */
function bindingRequest(): { packet: Buffer; id: Buffer } {
  const id = randomBytes(12);
  const packet = Buffer.alloc(20);
  packet.writeUInt16BE(0x0001, 0);
  packet.writeUInt16BE(0, 2);
  packet.writeUInt32BE(0x2112a442, 4);
  id.copy(packet, 8);
  return { packet, id };
}

/** Resolves true once a STUN Binding success response (0x0101) with our transaction id comes back. */
export function stunAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const { packet, id } = bindingRequest();
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearInterval(resend);
      socket.close();
      resolve(ok);
    };
    socket.on('error', () => finish(false));
    socket.on('message', (msg) => {
      if (msg.length >= 20 && msg.readUInt16BE(0) === 0x0101 && msg.subarray(8, 20).equals(id)) finish(true);
    });
    const send = () => socket.send(packet, port, host, () => undefined);
    const resend = setInterval(send, 100);
    const deadline = setTimeout(() => finish(false), timeoutMs);
    send();
  });
}

function turnserverArgs(host: string, port: number, dir: string): string[] {
  const anyAddress = host === '0.0.0.0' || host === '::';
  return [
    '-n', // no configuration file: everything is on this command line
    ...(anyAddress ? [] : [`--listening-ip=${host}`, `--relay-ip=${host}`]),
    `--listening-port=${port}`,
    '--no-tcp',
    '--no-tls',
    '--no-dtls',
    '--no-cli',
    '--lt-cred-mech',
    `--user=${TURN_USERNAME}:${TURN_CREDENTIAL}`,
    `--realm=${TURN_REALM}`,
    '--fingerprint',
    '--allow-loopback-peers',
    '--no-software-attribute',
    `--userdb=${join(dir, 'turndb')}`,
    `--pidfile=${join(dir, 'turnserver.pid')}`,
    '--log-file=stdout',
    '--simple-log',
  ];
}

function waitExit(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startTurnRelay(opts: TurnOptions): Promise<TurnRelay | null> {
  const { host, port, log } = opts;
  const dir = mkdtempSync(join(tmpdir(), 'standin-turn-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const child = spawn('setpriv', ['--pdeathsig', 'SIGKILL', opts.command ?? 'turnserver', ...turnserverArgs(host, port, dir)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let failure: string | null = null;
  child.once('error', (err) => {
    failure = err.message;
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(line.trim());
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const probeHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const answered = await Promise.race([stunAnswers(probeHost, port, READY_TIMEOUT_MS), exited.then(() => false)]);
  if (!answered || failure || child.pid === undefined) {
    await waitExit(child, 500);
    cleanup();
    const missing = failure ?? lines.find((l) => /No such file|not found|cannot|error/i.test(l)) ?? lines.at(-1) ?? 'no answer';
    log.warn('no TURN relay: coturn (turnserver) could not be started; media goes without a relay', {
      port,
      reason: missing,
    });
    return null;
  }
  const pid = child.pid;
  log.info('TURN relay ready (coturn)', { host, port, pid });
  child.once('exit', (code, signal) => {
    if (!closing) log.error('the TURN relay (coturn) stopped', { code, signal, last: lines.slice(-3) });
  });
  let closing: Promise<void> | null = null;
  return {
    host,
    port,
    pid,
    close() {
      closing ??= waitExit(child, 1_000).then(cleanup);
      return closing;
    },
  };
}
