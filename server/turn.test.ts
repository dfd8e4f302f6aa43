/** The TURN relay as the stand-in runs it: a real coturn, a real STUN exchange, and nothing left behind. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from './log.ts';
import { probeRelay, startUdpEcho } from '../tests/support/turnProbe.ts';
import type { NetworkInterfaceInfo } from 'node:os';
import { networkReach } from './reach.ts';
import { newTurnSecret, relayPeers, startTurnRelay, stunAnswers, turnCredential, turnserverConfig, type TurnRelay } from './turn.ts';

const quiet: Logger & { warnings: string[] } = {
  warnings: [],
  info: () => undefined,
  warn(message) {
    this.warnings.push(message);
  },
  error: () => undefined,
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** A port number free on TCP (the UDP one of the same number is then almost surely free too). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

let relay: TurnRelay | null = null;
afterEach(async () => {
  await relay?.close();
  relay = null;
});

describe('the TURN relay (coturn)', () => {
  it('answers STUN on the given UDP port once started, and is gone after close()', async () => {
    const port = await freePort();
    relay = await startTurnRelay({ host: '127.0.0.1', port, log: quiet, secret: newTurnSecret(), peers: ['127.0.0.1'] });
    expect(relay, 'coturn (turnserver) must be installed: the preflight installs it').not.toBeNull();
    expect(await stunAnswers('127.0.0.1', port, 2000)).toBe(true);
    const { pid } = relay!;
    await relay!.close();
    relay = null;
    expect(await gone(pid)).toBe(true);
    expect(await stunAnswers('127.0.0.1', port, 500)).toBe(false);
  });

  it("relays with a page's credential to the media's addresses only, and refuses an expired, forged or old fixed credential", async () => {
    const port = await freePort();
    const secret = newTurnSecret();
    relay = await startTurnRelay({ host: '127.0.0.1', port, log: quiet, secret, peers: ['127.0.0.1'] });
    expect(relay).not.toBeNull();
    const media = await startUdpEcho('127.0.0.1');
    // Another service of the machine, on an address the media does not answer from.
    const other = await startUdpEcho('127.0.0.2');
    try {
      const server = { host: '127.0.0.1', port };
      const page = turnCredential(secret);
      const result = await probeRelay({ relay: server, username: page.username, credential: page.credential, peers: [{ host: '127.0.0.1', port: media.port }, { host: '127.0.0.2', port: other.port }] });
      expect(result.refused).toBeNull();
      expect(result.peers[0]).toMatchObject({ echoed: 40, error: null });
      expect(result.peers[1]!.echoed).toBe(0);
      expect(result.peers[1]!.error).toMatch(/403|Forbidden/i);
      const peers = [{ host: '127.0.0.1', port: media.port }];
      const tries = [
        ['expired a minute ago', turnCredential(secret, -60)],
        ['signed with another secret', turnCredential('not-the-secret')],
        ["the old build's fixed one", { username: 'standin', credential: 'standin-relay' }],
      ] as const;
      // At once: a refused allocation takes the TURN client its whole retransmission time (about 6 s).
      const refusals = await Promise.all(tries.map(([, c]) => probeRelay({ relay: server, ...c, peers, packets: 1 })));
      for (const [i, refused] of refusals.entries()) {
        expect(refused.refused, tries[i]![0]).not.toBeNull();
        expect(refused.peers, tries[i]![0]).toEqual([]);
      }
    } finally {
      media.close();
      other.close();
    }
  });

  it("reaches the media's LAN addresses from a relay on every interface, never the loopback", () => {
    const v4 = (cidr: string) => ({ address: cidr.split('/')[0], cidr, family: 'IPv4', internal: false, netmask: '' }) as NetworkInterfaceInfo;
    const lan = { eth0: [v4('192.168.1.23/24')], eth1: [v4('10.0.0.5/8')] };
    expect(relayPeers(networkReach('0.0.0.0', lan, () => 1), ['192.168.1.23', '10.0.0.5', '127.0.0.1'])).toEqual(['192.168.1.23', '10.0.0.5']);
    expect(relayPeers(networkReach('127.0.0.1', lan, () => 1), ['127.0.0.1'])).toEqual(['127.0.0.1']);
    expect(relayPeers(networkReach('192.168.1.23', lan, () => 1), ['192.168.1.23'])).toEqual(['192.168.1.23']);
  });

  it("denies every docker, VM and VPN interface's subnet of the machine, read from its interfaces, and allows only the LAN address", () => {
    const v4 = (cidr: string) => ({ address: cidr.split('/')[0], cidr, family: 'IPv4', internal: false, netmask: '' }) as NetworkInterfaceInfo;
    // A fake machine: Wi-Fi, docker's bridge and a compose network, libvirt's bridge, an
    // OpenVPN tun, WireGuard, and a VPN interface with a name of its user's (a tun device).
    const interfaces = {
      lo: [{ ...v4('127.0.0.1/8'), internal: true }],
      wlp2s0: [v4('192.168.1.23/24')],
      docker0: [v4('172.17.0.1/16')],
      'br-0c1d2e3f4a5b': [v4('172.20.0.1/16')],
      virbr0: [v4('192.168.122.1/24')],
      tun0: [v4('10.8.0.6/24')],
      wg0: [v4('10.66.0.2/24')],
      office: [v4('10.20.0.9/16')],
    };
    const types: Record<string, number> = { wlp2s0: 1, docker0: 1, 'br-0c1d2e3f4a5b': 1, virbr0: 1, tun0: 65534, wg0: 65534, office: 65534 };
    const reach = networkReach('0.0.0.0', interfaces, (name) => types[name] ?? null);
    const peers = relayPeers(reach, ['192.168.1.23', '127.0.0.1']);
    const lines = turnserverConfig({ host: '0.0.0.0', port: 8080, secret: 's', peers, deniedSubnets: reach.denied }, '/tmp/x').split('\n');
    expect(lines.filter((l) => l.startsWith('allowed-peer-ip='))).toEqual(['allowed-peer-ip=192.168.1.23']);
    expect(lines.filter((l) => l.startsWith('denied-peer-ip=')).sort()).toEqual(
      [
        'denied-peer-ip=0.0.0.0-255.255.255.255',
        'denied-peer-ip=::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
        'denied-peer-ip=172.17.0.0-172.17.255.255',
        'denied-peer-ip=172.20.0.0-172.20.255.255',
        'denied-peer-ip=192.168.122.0-192.168.122.255',
        'denied-peer-ip=10.8.0.0-10.8.0.255',
        'denied-peer-ip=10.66.0.0-10.66.0.255',
        'denied-peer-ip=10.20.0.0-10.20.255.255',
      ].sort(),
    );
    expect(lines).not.toContain('allow-loopback-peers');
  });

  it('without coturn it says so and the stand-in runs on without a relay', async () => {
    quiet.warnings = [];
    const none = await startTurnRelay({ host: '127.0.0.1', port: await freePort(), log: quiet, secret: newTurnSecret(), peers: [], command: 'turnserver-not-installed' });
    expect(none).toBeNull();
    expect(quiet.warnings.join('\n')).toMatch(/no TURN relay/);
  });

  it('dies with the stand-in even when the stand-in is killed outright (SIGKILL)', async () => {
    // A parent process that starts the relay, prints coturn's pid, and waits to be killed.
    const port = await freePort();
    const script = `
      const { startTurnRelay } = await import(${JSON.stringify(new URL('./turn.ts', import.meta.url).href)});
      const log = { info() {}, warn() {}, error() {} };
      const relay = await startTurnRelay({ host: '127.0.0.1', port: ${port}, log, secret: 'test-secret', peers: ['127.0.0.1'] });
      process.stdout.write(String(relay?.pid ?? 'none') + '\\n');
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(parent.stdout, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    expect(Number.isInteger(pid)).toBe(true);
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    expect(await gone(pid), 'coturn outlived a killed stand-in').toBe(true);
  });
});
