/**
 * The TURN relay of the `local` environment: Debian's coturn (`turnserver`), run as a child
 * of the stand-in so that the demo's media can go through a real relay, as the
 * specification's media does ("a relay (TURN) server is used for media").
 *
 * - UDP only, on the HTTP server's own port number: `/get/route` names it as
 *   `turn:{page host}:{port}?transport=udp`, so a build needs no per-run port and two
 *   stand-ins on two ports run side by side. (coturn's TCP listener is off: that port is the
 *   HTTP server's.)
 * - It relays to the demo's media and to nothing else: every peer address is denied but the
 *   addresses the media answers from (`peers`), loopback only when the relay itself is on
 *   loopback, no TCP relay, no multicast. Under `--lan` a device on the network that gets a
 *   credential reaches, through the relay, only what it reaches without it: the machine's
 *   LAN address. (Before, it reached every port of the machine's loopback.)
 * - Credentials are coturn's REST-API ones (`use-auth-secret`): the stand-in signs a
 *   time-limited username (`{expiry}:{random}`) with a secret made per run and hands each
 *   page its own in the `/get/route` answer (turnCredential). Nothing fixed is built into
 *   the app any more, and a credential is useless once the stand-in restarts. The secret
 *   reaches coturn in a configuration file only this user can read, never on its command line.
 * - It cannot outlive the stand-in: `setpriv --pdeathsig SIGKILL` has the kernel kill it
 *   when the stand-in dies, however it dies; `close()` stops it politely first.
 * - Where coturn is missing, or does not answer a STUN binding request within 5 s, the
 *   stand-in says so and runs without a relay (start() resolves null).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from './log.ts';
import { isLoopback, refusedPeer, subnetRange, type Reach, type Subnet } from './reach.ts';

export const TURN_REALM = 'standin';
const READY_TIMEOUT_MS = 5_000;
/**
 * How long a page's credential is valid. A browser renews its allocation, permissions and
 * channels with the same credential for the whole session (and coturn checks it each time),
 * and a media reconnect allocates again with it, so it must outlast any session: a day, as
 * the TURN REST API draft (draft-uberti-behave-turn-rest) recommends.
 */
export const TURN_CREDENTIAL_TTL_S = 24 * 3600;
/** Allocations one credential (one page's session) may hold at once; one per peer connection. */
const ALLOCATIONS_PER_CREDENTIAL = 8;
const ALLOCATIONS_IN_ALL = 64;
/** Per allocation, each way: the avatar's stream is about 1.2 Mbit/s (server/README.md, *The TURN relay*). */
const MAX_BYTES_PER_SECOND = 512 * 1024;

/** A secret for coturn's REST-API credentials, new for each run. */
export function newTurnSecret(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * A credential of the TURN REST API as coturn's `use-auth-secret` checks it: the username is
 * the expiry (Unix seconds) and a tag, the password the base64 HMAC-SHA1 of the username
 * under the shared secret.
 */
export function turnCredential(secret: string, ttlS = TURN_CREDENTIAL_TTL_S, nowMs = Date.now()): { username: string; credential: string } {
  const username = `${Math.floor(nowMs / 1000) + ttlS}:${randomBytes(6).toString('hex')}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

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
  /** The shared secret of the credentials the stand-in hands out (newTurnSecret). */
  secret: string;
  /** The only addresses the relay may send to: those the media answers from (see relayPeers). */
  peers: readonly string[];
  /** This machine's subnets the relay must not reach (server/reach.ts: docker, VM, VPN interfaces). */
  deniedSubnets?: readonly Subnet[];
  /** The binary; default `turnserver` on PATH. */
  command?: string;
}

/**
 * The peers the relay may reach: the addresses the media answers from (`mediaAddresses`) that
 * the media's own rule allows (server/reach.ts refusedPeer), so that relay and media share one
 * definition: on loopback, loopback; on every interface or a LAN address, the LAN interfaces'
 * addresses only (a phone's relayed media reaches the machine there; its loopback, docker and
 * VPN interfaces are not for the network).
 */
export function relayPeers(reach: Reach, mediaAddresses: readonly string[]): string[] {
  return mediaAddresses.filter((a) => refusedPeer(reach, a) === null);
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

/** coturn's configuration (one option a line, as turnserver.conf), secret included. */
export function turnserverConfig(opts: Pick<TurnOptions, 'host' | 'port' | 'secret' | 'peers' | 'deniedSubnets'>, dir: string): string {
  const { host, port, secret, peers, deniedSubnets = [] } = opts;
  const anyAddress = host === '0.0.0.0' || host === '::';
  return [
    ...(anyAddress ? [] : [`listening-ip=${host}`, `relay-ip=${host}`]),
    `listening-port=${port}`,
    'no-tcp',
    'no-tls',
    'no-dtls',
    'no-cli',
    'use-auth-secret',
    `static-auth-secret=${secret}`,
    `realm=${TURN_REALM}`,
    'fingerprint',
    'no-software-attribute',
    // What a relayed connection may reach: the media's addresses, and nothing else.
    'no-tcp-relay',
    'no-multicast-peers',
    ...(peers.some((p) => isLoopback(p)) ? ['allow-loopback-peers'] : []),
    'denied-peer-ip=0.0.0.0-255.255.255.255',
    'denied-peer-ip=::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    // Each of this machine's other networks (docker, VM, VPN) denied again by its own range:
    // the allowed peers below never include them (relayPeers), and coturn's log of a refused
    // peer then names that range. (coturn checks allowed-peer-ip first: an allowed address
    // passes every denial, so the allowed list is what must stay narrow.)
    ...deniedSubnets.map((s) => `denied-peer-ip=${subnetRange(s)}`),
    ...peers.map((peer) => `allowed-peer-ip=${peer}`),
    `user-quota=${ALLOCATIONS_PER_CREDENTIAL}`,
    `total-quota=${ALLOCATIONS_IN_ALL}`,
    `max-bps=${MAX_BYTES_PER_SECOND}`,
    `userdb=${join(dir, 'turndb')}`,
    `pidfile=${join(dir, 'turnserver.pid')}`,
    'log-file=stdout',
    'simple-log',
    '',
  ].join('\n');
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
  const config = join(dir, 'turnserver.conf');
  writeFileSync(config, turnserverConfig(opts, dir), { mode: 0o600 });
  const child = spawn('setpriv', ['--pdeathsig', 'SIGKILL', opts.command ?? 'turnserver', '-c', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let failure: string | null = null;
  child.once('error', (err) => {
    failure = err.message;
  });
  const lines: string[] = [];
  // coturn's output is kept for the reason of a failure; reading it must never throw out of a stream handler.
  const keep = (chunk: Buffer) => {
    try {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(line.trim());
      if (lines.length > 200) lines.splice(0, lines.length - 200);
    } catch (err) {
      log.warn('could not read the TURN relay output', { error: String(err) });
    }
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
  log.info('TURN relay ready (coturn)', { host, port, pid, peers: opts.peers });
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
