/** What the media's STUN and the relay may reach, from a fake interface set (server/reach.ts). */
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { filterOfferCandidates, isLanInterface, mediaReach, networkReach, refusedPeer, subnetRange } from './reach.ts';

const v4 = (cidr: string, internal = false) => ({ address: cidr.split('/')[0], cidr, family: 'IPv4', internal, netmask: '' }) as NetworkInterfaceInfo;

/** A laptop on Wi-Fi with docker, a VPN, a VM bridge and a WireGuard tunnel. */
const LAPTOP: NodeJS.Dict<NetworkInterfaceInfo[]> = {
  lo: [v4('127.0.0.1/8', true)],
  wlan0: [v4('192.168.1.23/24')],
  docker0: [v4('172.17.0.1/16')],
  'br-5f2a': [v4('172.18.0.1/16')],
  tun0: [v4('10.8.0.6/24')],
  virbr0: [v4('192.168.122.1/24')],
  wg0: [v4('10.66.0.2/32')],
  // A VPN interface named by its user: its kind (a tun device, no Ethernet) gives it away.
  corpvpn: [v4('10.20.0.9/16')],
};
/** The kernel's link types: 1 Ethernet (and Wi-Fi), 65534 a tun/WireGuard device. */
const LAPTOP_TYPES: Record<string, number> = { wlan0: 1, docker0: 1, 'br-5f2a': 1, tun0: 65534, virbr0: 1, wg0: 65534, corpvpn: 65534 };
const typeOf = (name: string) => LAPTOP_TYPES[name] ?? null;

describe('networkReach', () => {
  it('on every interface serves the LAN interfaces\' subnets and denies every virtual one\'s, read from the interfaces', () => {
    const reach = networkReach('0.0.0.0', LAPTOP, typeOf);
    expect(reach.loopbackOnly).toBe(false);
    expect(reach.lan.map((s) => `${s.iface} ${s.address}/${s.prefix}`)).toEqual(['wlan0 192.168.1.23/24']);
    expect(reach.denied.map((s) => s.iface).sort()).toEqual(['br-5f2a', 'corpvpn', 'docker0', 'tun0', 'virbr0', 'wg0']);
    expect(reach.denied.map(subnetRange)).toContain('172.17.0.0-172.17.255.255');
  });

  it('bound to one address serves its subnet only; bound to loopback, loopback only', () => {
    const one = networkReach('192.168.1.23', LAPTOP, typeOf);
    expect(one.lan.map((s) => s.address)).toEqual(['192.168.1.23']);
    expect(one.denied.length).toBe(6);
    const local = networkReach('127.0.0.1', LAPTOP, typeOf);
    expect(local).toMatchObject({ loopbackOnly: true, lan: [] });
    expect(mediaReach(['127.0.0.1'], LAPTOP, typeOf).loopbackOnly).toBe(true);
    expect(mediaReach(['192.168.1.23', '127.0.0.1'], LAPTOP, typeOf).lan).toHaveLength(1);
  });

  it('tells a LAN interface by its name and its kind', () => {
    expect(isLanInterface('eth0', 1)).toBe(true);
    expect(isLanInterface('enp3s0', null)).toBe(true);
    expect(isLanInterface('docker0', 1)).toBe(false);
    expect(isLanInterface('myvpn', 65534)).toBe(false);
  });
});

describe('refusedPeer: where the media may send STUN', () => {
  const lan = networkReach('0.0.0.0', LAPTOP, typeOf);
  const local = networkReach('127.0.0.1', LAPTOP, typeOf);

  it('allows the LAN subnet, and loopback only to a stand-in bound to loopback', () => {
    expect(refusedPeer(lan, '192.168.1.40')).toBeNull();
    expect(refusedPeer(local, '127.0.0.1')).toBeNull();
    expect(refusedPeer(lan, '127.0.0.1')).toMatch(/loopback/);
    expect(refusedPeer(local, '192.168.1.40')).toMatch(/bound to loopback/);
  });

  it('refuses other hosts, this machine\'s other networks, names and IPv6', () => {
    expect(refusedPeer(lan, '10.1.2.3')).toMatch(/outside the LAN/);
    expect(refusedPeer(lan, '192.168.77.2')).toMatch(/outside the LAN/);
    expect(refusedPeer(lan, '172.17.0.2')).toMatch(/docker0/);
    expect(refusedPeer(lan, '10.8.0.1')).toMatch(/tun0/);
    expect(refusedPeer(lan, '192.168.122.50')).toMatch(/virbr0/);
    expect(refusedPeer(lan, '4f9c1b2e-7d3a-4c8e-9f10-2a3b4c5d6e7f.local')).toMatch(/mDNS/);
    expect(refusedPeer(lan, 'printer.example.com')).toMatch(/no name is looked up/);
    expect(refusedPeer(lan, 'fd00::5')).toMatch(/IPv6/);
  });
});

describe('filterOfferCandidates', () => {
  const offer = [
    'v=0',
    'm=video 9 UDP/TLS/RTP/SAVPF 96',
    'a=ice-ufrag:abcd',
    'a=candidate:1 1 udp 2122260223 192.168.1.40 50000 typ host generation 0',
    'a=candidate:2 1 udp 2122260223 10.9.9.9 50001 typ host',
    'a=candidate:3 1 udp 2122260223 127.0.0.1 50002 typ host',
    'a=candidate:4 1 udp 2122260223 1f2e3d4c.local 50003 typ host',
    'a=candidate:5 1 udp 1686052607 203.0.113.7 50004 typ srflx raddr 0.0.0.0 rport 0',
    'a=candidate:6 1 udp 41885439 192.168.1.23 60000 typ relay raddr 0.0.0.0 rport 0',
    'a=candidate:garbage',
    'a=end-of-candidates',
    '',
  ].join('\r\n');

  it('keeps the LAN candidates (host and relay), drops every other with its reason, and leaves the rest of the SDP alone', () => {
    const out = filterOfferCandidates(networkReach('0.0.0.0', LAPTOP, typeOf), offer);
    expect(out.kept).toEqual(['192.168.1.40', '192.168.1.23']);
    expect(out.dropped.map((d) => d.address)).toEqual(['10.9.9.9', '127.0.0.1', '1f2e3d4c.local', '203.0.113.7', 'a=candidate:garbage']);
    expect(out.sdp).not.toMatch(/10\.9\.9\.9|127\.0\.0\.1|\.local|203\.0\.113|garbage/);
    expect(out.sdp).toMatch(/^a=ice-ufrag:abcd\r$/m);
    expect(out.sdp).toMatch(/a=end-of-candidates\r\n$/);
  });

  it('keeps loopback for a stand-in on loopback (the default npm start and the tests)', () => {
    const out = filterOfferCandidates(networkReach('127.0.0.1', LAPTOP, typeOf), offer);
    expect(out.kept).toEqual(['127.0.0.1']);
  });
});
