/**
 * An impaired network between one browser and the stand-in, for the tests and the soak
 * benchmark of issue 12. Nothing here touches the machine's own interfaces or the loopback
 * interface's qdisc: everything is made for the run and removed after it, whatever happens.
 *
 *   browser (in network namespace NS) ──veth── host side: stand-in HTTP + signaling on HOST_IP:PORT
 *                                                 └─ UDP HOST_IP:PORT → delay line → coturn 127.0.0.1:PORT → werift 127.0.0.1
 *
 * - The browser runs inside a network namespace made here (`ip netns`), joined to the host
 *   by a veth pair; it reaches the stand-in only through that pair. Its media is relay-only
 *   (`?relay=1`): the app's TURN URL is turn:HOST_IP:PORT, the page's own host and port.
 * - That UDP port is a delay line in this process (this kernel has no netem): every datagram
 *   waits `delayMs` ± `jitterMs` (uniform, so packets may be reordered, as netem's jitter
 *   does) on its way to the test's own coturn on 127.0.0.1:PORT and back.
 * - Loss and blackouts are nftables rules inside the namespace (`numgen random`, drop-all),
 *   on both directions; a bottleneck is a token bucket (`tc tbf`) on the host end of the
 *   veth pair, which only this run's traffic crosses (the stand-in → browser direction).
 * - A change of network (a phone moving from Wi-Fi to cellular) is `switchAddress()`: the
 *   browser's address is deleted and another one of the pair's subnet is added, so every
 *   path it had (TCP connections, ICE pairs, TURN allocations) dies at once while the
 *   stand-in's address stays where it was. The subnet is a /27 of this run's own: the host
 *   has .1, the browser starts at .2 and each switch takes the next of .2 … .30.
 *
 * Root is needed (namespaces, nftables, tc); `impairmentUnavailable()` says why not, in one line.
 */
import { execFileSync } from 'node:child_process';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Impairment {
  /** One-way delay added to each datagram, each direction (RTT grows by twice this). */
  delayMs?: number;
  /** ± this much, uniform, per datagram. */
  jitterMs?: number;
  /** Random loss of media datagrams, percent, each direction. */
  lossPct?: number;
  /** Downstream rate limit (stand-in → browser), kbit/s. */
  rateKbit?: number;
}

/** One change of the browser's address (`ImpairedLink.switchAddress`). */
export interface AddressSwitch {
  oldIp: string;
  newIp: string;
  /** Date.now() when the old address was deleted. */
  downAt: number;
  /** Date.now() when the new one was up (added, and the host's route to it checked). */
  upAt: number;
}

export interface ImpairedLink {
  namespace: string;
  /** The host's address on the veth pair: the stand-in listens there. */
  hostIp: string;
  /**
   * The namespace's own address on the pair (the browser's, the phone's): the current one,
   * read anew after each `switchAddress()`.
   */
  readonly nsIp: string;
  /** A script that runs Chromium inside the namespace (Playwright's executablePath). */
  chromiumWrapper: string;
  /** Connects the delay line to the test's coturn on 127.0.0.1:port, listening on hostIp:port. */
  startDelayLine(port: number): Promise<void>;
  impair(impairment: Impairment): void;
  /** Drops every packet between the browser and the host, both ways (TCP too), until ended. */
  blackout(on: boolean): void;
  /**
   * The phone moves to another network: inside the namespace the browser's address is
   * deleted, then (after `downMs`, 0 by default) the next address of the subnet is added on
   * the same veth, as a phone's Wi-Fi address goes and its cellular one comes up. Nothing
   * else is touched: the host keeps the old address in its ARP cache for a while, and the
   * browser's connections from the old address are left as they are (zombies, as on a
   * phone). Resolves once the host's route reaches the new address.
   */
  switchAddress(opts?: { downMs?: number }): Promise<AddressSwitch>;
  /** Datagrams through the delay line so far, each way. */
  counts(): { up: number; down: number };
  close(): Promise<void>;
}

function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Whether `cmd` is on the PATH. */
export function has(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why impaired-link tests cannot run here, or null when they can. */
export function impairmentUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces, nftables and tc need root';
  for (const cmd of ['ip', 'nft', 'tc', 'turnserver']) if (!has(cmd)) return `${cmd} is not installed (the preflight installs it)`;
  return null;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The bottleneck's token bucket: a full one passes this much above the rate at once. */
export const TBF_BURST_BYTES = 15_000;

export async function createImpairedLink(): Promise<ImpairedLink> {
  const why = impairmentUnavailable();
  if (why) throw new Error(`impaired links are not available: ${why}`);
  // Short names (interface names are at most 15 bytes), unique per process.
  const tag = `${process.pid.toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  const namespace = `avimp-${tag}`;
  const hostIf = `avh${tag}`;
  const nsIf = `avn${tag}`;
  const subnet = 16 + (process.pid % 200);
  // A /27 (.1 … .30): room for a switch of the browser's address many times over without
  // taking back one it had (its old connections would come back to life with it).
  const PREFIX = 27;
  const LAST_HOST = 30;
  const hostIp = `10.213.${subnet}.1`;
  let nsHost = 2;
  let nsIp = `10.213.${subnet}.${nsHost}`;
  const dir = mkdtempSync(join(tmpdir(), 'avimp-'));
  const inNs = (cmd: string, args: string[]) => sh('ip', ['netns', 'exec', namespace, cmd, ...args]);
  const nft = (script: string) =>
    execFileSync('ip', ['netns', 'exec', namespace, 'nft', '-f', '-'], { input: script, stdio: ['pipe', 'ignore', 'pipe'] });

  let sockets: Socket[] = [];
  let timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const cleanup = () => {
    for (const t of timers) clearTimeout(t);
    timers = new Set();
    for (const s of sockets) s.close();
    sockets = [];
    // Deleting the namespace deletes its veth end, and with it the host's end.
    try {
      sh('ip', ['netns', 'del', namespace]);
    } catch {
      /* already gone */
    }
    try {
      sh('ip', ['link', 'del', hostIf]);
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => cleanup();
  process.once('exit', onExit);

  try {
    sh('ip', ['netns', 'add', namespace]);
    sh('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf, 'netns', namespace]);
    sh('ip', ['addr', 'add', `${hostIp}/${PREFIX}`, 'dev', hostIf]);
    sh('ip', ['link', 'set', hostIf, 'up']);
    inNs('ip', ['addr', 'add', `${nsIp}/${PREFIX}`, 'dev', nsIf]);
    inNs('ip', ['link', 'set', nsIf, 'up']);
    inNs('ip', ['link', 'set', 'lo', 'up']);
    nft(`table inet impair {
  chain input { type filter hook input priority 0; policy accept; }
  chain output { type filter hook output priority 0; policy accept; }
}
`);
  } catch (error) {
    process.removeListener('exit', onExit);
    cleanup();
    throw error;
  }

  const chromiumWrapper = join(dir, 'chromium-in-namespace');
  writeFileSync(chromiumWrapper, `#!/bin/sh\nexec ip netns exec ${namespace} ${CHROMIUM} "$@"\n`);
  chmodSync(chromiumWrapper, 0o755);

  let current: Required<Impairment> = { delayMs: 0, jitterMs: 0, lossPct: 0, rateKbit: 0 };
  let mediaPort = 0;
  let blackedOut = false;
  const counts = { up: 0, down: 0 };

  const rules = () => {
    const lines: string[] = [];
    if (blackedOut) {
      lines.push(`add rule inet impair input ip saddr ${hostIp} drop`, `add rule inet impair output ip daddr ${hostIp} drop`);
    } else if (current.lossPct > 0 && mediaPort) {
      const pct = Math.round(current.lossPct);
      lines.push(
        `add rule inet impair input ip saddr ${hostIp} udp sport ${mediaPort} numgen random mod 100 < ${pct} drop`,
        `add rule inet impair output ip daddr ${hostIp} udp dport ${mediaPort} numgen random mod 100 < ${pct} drop`,
      );
    }
    nft(['flush chain inet impair input', 'flush chain inet impair output', ...lines].join('\n') + '\n');
  };

  const shape = () => {
    try {
      sh('tc', ['qdisc', 'del', 'dev', hostIf, 'root']);
    } catch {
      /* none yet */
    }
    if (current.rateKbit > 0) {
      // A bucket of ~10 full-size packets, and at most 300 ms of queue: a phone's bottleneck, not an infinite buffer.
      sh('tc', ['qdisc', 'add', 'dev', hostIf, 'root', 'tbf', 'rate', `${current.rateKbit}kbit`, 'burst', String(TBF_BURST_BYTES), 'latency', '300ms']);
    }
  };

  const later = (fn: () => void) => {
    const { delayMs, jitterMs } = current;
    const wait = Math.max(0, delayMs + (jitterMs ? (Math.random() * 2 - 1) * jitterMs : 0));
    if (wait === 0) return fn();
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, wait);
    timers.add(t);
  };

  return {
    namespace,
    hostIp,
    get nsIp() {
      return nsIp;
    },
    chromiumWrapper,
    async startDelayLine(port: number) {
      mediaPort = port;
      const front = createSocket('udp4');
      sockets.push(front);
      const upstreams = new Map<string, Socket>();
      await new Promise<void>((resolve, reject) => {
        front.once('error', reject);
        front.bind(port, hostIp, () => resolve());
      });
      front.on('message', (packet: Buffer, from: RemoteInfo) => {
        const key = `${from.address}:${from.port}`;
        let up = upstreams.get(key);
        if (!up) {
          const socket = createSocket('udp4');
          sockets.push(socket);
          socket.bind(0, '127.0.0.1');
          socket.on('message', (reply: Buffer) => {
            counts.down += 1;
            later(() => front.send(reply, from.port, from.address));
          });
          socket.on('error', () => undefined);
          upstreams.set(key, socket);
          up = socket;
        }
        counts.up += 1;
        const target = up;
        later(() => target.send(packet, port, '127.0.0.1'));
      });
      rules();
    },
    impair(impairment: Impairment) {
      current = { delayMs: 0, jitterMs: 0, lossPct: 0, rateKbit: 0, ...impairment };
      rules();
      shape();
    },
    blackout(on: boolean) {
      blackedOut = on;
      rules();
    },
    async switchAddress({ downMs = 0 } = {}) {
      if (closed) throw new Error('the link is closed');
      const oldIp = nsIp;
      nsHost = nsHost >= LAST_HOST ? 2 : nsHost + 1;
      const newIp = `10.213.${subnet}.${nsHost}`;
      // The old one first, then the new one: the namespace never holds both, so no
      // connection can move over to the new address by itself (and deleting a subnet's
      // primary address would take its secondaries with it anyway).
      inNs('ip', ['addr', 'del', `${oldIp}/${PREFIX}`, 'dev', nsIf]);
      const downAt = Date.now();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      inNs('ip', ['addr', 'add', `${newIp}/${PREFIX}`, 'dev', nsIf]);
      nsIp = newIp;
      // The stand-in answers the new address over the host's end of the pair (its /27 route).
      const route = sh('ip', ['route', 'get', newIp]);
      if (!route.includes(`dev ${hostIf}`)) throw new Error(`the host does not route ${newIp} over ${hostIf}: ${route.trim()}`);
      return { oldIp, newIp, downAt, upAt: Date.now() };
    },
    counts: () => ({ ...counts }),
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener('exit', onExit);
      cleanup();
    },
  };
}
