/**
 * Where the media server sends STUN (issue 53): a WHEP offer names addresses a device on the
 * network should not be able to point the stand-in at (other hosts on 10.x and 192.168.x,
 * this machine's docker network, its loopback while it serves the LAN, a `.local` name to
 * look up). The real media server (server/media/whep.ts on werift, bound as `--lan` binds it,
 * so running full ICE) answers the offer inside a network namespace made here, whose only
 * links end inside it: nothing it sends leaves this machine (this workplace allows no
 * traffic to those ranges), and the namespace's kernel counts every datagram it sends to each
 * address (nftables counters). The candidate on the LAN subnet is the control: its checks
 * show werift did run its checks, highest priority first, so the others had their turn.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { has } from '../support/impairedLink.ts';
import { REPO_ROOT } from '../support/standin.ts';


const unavailable = process.platform !== 'linux' ? 'network namespaces need Linux' : process.getuid?.() !== 0 ? 'network namespaces need root' : !has('ip') || !has('nft') ? 'ip and nft are needed (the preflight installs them)' : null;

const NS = `avreach-${process.pid.toString(36)}`;
const LAN = '10.213.7.1';
/** The offer's candidates, highest priority first: every one but the last is refused. */
const TARGETS = [
  { name: 'another host on 10.x', address: '10.99.1.2', port: 50001 },
  { name: 'another host on 192.168.x', address: '192.168.77.2', port: 50002 },
  { name: "this machine's docker network", address: '172.31.250.5', port: 50003 },
  { name: 'loopback, while serving the LAN', address: '127.0.0.1', port: 40999 },
  { name: 'an mDNS name', address: '3f1e9a2b-5c6d-4e7f-8a9b-0c1d2e3f4a5b.local', port: 50005 },
  { name: 'a visitor on the LAN subnet', address: '10.213.7.7', port: 50006 },
];

const sh = (cmd: string, args: string[], input?: string) => execFileSync(cmd, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
const inNs = (cmd: string, args: string[], input?: string) => sh('ip', ['netns', 'exec', NS, cmd, ...args], input);

/** Datagrams sent so far to each target, by name (mDNS: any query to port 5353). */
function counts(): Record<string, number> {
  const json = JSON.parse(inNs('nft', ['-j', 'list', 'table', 'inet', 'reach'])) as { nftables: { rule?: { comment?: string; expr: { counter?: { packets: number } }[] } }[] };
  const out: Record<string, number> = {};
  for (const item of json.nftables) {
    const rule = item.rule;
    if (rule?.comment) out[rule.comment] = rule.expr.find((e) => e.counter)?.counter?.packets ?? 0;
  }
  return out;
}

describe.skipIf(unavailable !== null)('the media sends STUN only where the relay\'s rules allow', () => {
  beforeAll(() => {
    sh('ip', ['netns', 'add', NS]);
    inNs('ip', ['link', 'set', 'lo', 'up']);
    // The LAN and docker's bridge, each a veth pair whose other end is in the namespace too
    // and has no address: what is sent to them goes nowhere.
    for (const [dev, cidr] of [['lan0', `${LAN}/24`], ['docker0', '172.31.250.1/24']] as const) {
      inNs('ip', ['link', 'add', dev, 'type', 'veth', 'peer', 'name', `${dev}-end`]);
      inNs('ip', ['addr', 'add', cidr, 'dev', dev]);
      inNs('ip', ['link', 'set', dev, 'up']);
      inNs('ip', ['link', 'set', `${dev}-end`, 'up']);
    }
    inNs('ip', ['route', 'add', 'default', 'dev', 'lan0']);
    const rules = [
      ...TARGETS.filter((t) => !t.address.endsWith('.local')).map((t) => `add rule inet reach out ip daddr ${t.address} udp dport ${t.port} counter comment "${t.name}"`),
      `add rule inet reach out udp dport 5353 counter comment "an mDNS name"`,
    ];
    inNs('nft', ['-f', '-'], ['add table inet reach', 'add chain inet reach out { type filter hook output priority 0; policy accept; }', ...rules, ''].join('\n'));
  });
  afterAll(() => {
    try {
      sh('ip', ['netns', 'del', NS]);
    } catch {
      /* never made */
    }
  });

  it('no STUN to other hosts, docker, loopback or an mDNS lookup; checks to the visitor on the LAN subnet', async () => {
    const input = JSON.stringify({ candidates: TARGETS.map(({ address, port }) => ({ address, port })) });
    const probe: ChildProcess = spawn('ip', ['netns', 'exec', NS, process.execPath, '--import', 'tsx', 'tests/support/stunTargets.ts', input], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const lines = createInterface({ input: probe.stdout! });
      const ready = new Promise<void>((resolve, reject) => {
        lines.on('line', (l) => l === 'ready' && resolve());
        probe.once('exit', (code) => reject(new Error(`the media probe exited (${code})`)));
      });
      await ready;
      // The lowest-priority candidate's checks, retransmitted: by then every higher pair had its turn.
      await expect.poll(() => counts()['a visitor on the LAN subnet'] ?? 0, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(3);
      const sent = counts();
      process.stdout.write(`[abuse] STUN datagrams by target: ${JSON.stringify(sent)}\n`);
      for (const t of TARGETS.slice(0, -1)) expect(sent[t.name], t.name).toBe(0);
    } finally {
      probe.kill('SIGTERM');
      if (probe.exitCode === null) await once(probe, 'exit');
    }
  }, 40_000);
});

if (unavailable) process.stdout.write(`[abuse] media-reach: skipped, ${unavailable}\n`);
