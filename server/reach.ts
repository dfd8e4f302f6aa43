/**
 * What the stand-in's media and its TURN relay may reach on the network: one definition for
 * both (issue 53). A device on the same network can name any address in a WHEP offer's
 * candidates, and with a relay credential ask the relay for any peer; neither must turn the
 * stand-in into a way onto this machine's other networks (docker, a VPN, a VM bridge), its
 * loopback, or other hosts.
 *
 * - The LAN is the subnets of the interfaces a phone can be on: every interface with an IPv4
 *   address, but loopback, link-local and the virtual ones. An interface is virtual by its
 *   kind as the kernel reports it (a link type other than Ethernet, which Wi-Fi also reports:
 *   tun, WireGuard, PPP and IP tunnels) or by the names container, VM and VPN tools give
 *   theirs (docker0, br-*, virbr*, vboxnet*, tun*, wg*, ...). Their subnets are read from the
 *   interfaces themselves, never from a fixed list of ranges.
 * - A stand-in bound to one address serves that address's subnet; one bound to loopback
 *   (the default) serves loopback only, and no LAN.
 * - The media sends STUN only to offered candidates on those subnets (loopback ones only when
 *   bound to loopback), and no `.local` (mDNS) name is looked up: filterOfferCandidates.
 * - The relay's allowed peers are the media's addresses that pass the same rule, and every
 *   other interface's subnet is denied by name in its configuration (server/turn.ts).
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/** Names container, VM and VPN tools give their interfaces. */
export const VIRTUAL_INTERFACE = /^(docker|br-|veth|virbr|vboxnet|vmnet|vnet|lxc|lxd|cni|flannel|cali|weave|podman|kube|tun|tap|wg|zt|tailscale|utun|ppp|ipsec|vti|gre|sit|ip6tnl)/;
/** ARPHRD_ETHER: Ethernet, and Wi-Fi, as /sys/class/net/NAME/type reports them. */
const LINK_ETHERNET = 1;

export interface Subnet {
  /** The interface it was read from (for the log and the refusal's reason). */
  iface: string;
  address: string;
  prefix: number;
}

export interface Reach {
  /** Bound to loopback: the media serves this machine only. */
  loopbackOnly: boolean;
  /** The subnets the media serves and the relay may reach. */
  lan: Subnet[];
  /** Every other non-loopback IPv4 subnet of this machine: reached by neither. */
  denied: Subnet[];
}

/** The interface's link type from sysfs (null where there is none to read: not Linux, a test's fake interface). */
export function linkType(name: string): number | null {
  try {
    return Number(readFileSync(`/sys/class/net/${name}/type`, 'utf8').trim());
  } catch {
    return null;
  }
}

/** Whether an interface can be the phone's network: not virtual by its kind or by its name. */
export function isLanInterface(name: string, type: number | null = linkType(name)): boolean {
  return !VIRTUAL_INTERFACE.test(name) && (type === null || type === LINK_ETHERNET);
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The address as a 32-bit number, or null when it is not a dotted IPv4 address. */
export function ipv4ToInt(address: string): number | null {
  const m = IPV4.exec(address);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export function inSubnet(address: string, subnet: Subnet): boolean {
  const a = ipv4ToInt(address);
  const s = ipv4ToInt(subnet.address);
  if (a === null || s === null) return false;
  const m = mask(subnet.prefix);
  return ((a & m) >>> 0) === ((s & m) >>> 0);
}

/** The subnet as coturn's range syntax, `first-last` (its CIDR syntax is newer than Debian 12's coturn). */
export function subnetRange(subnet: Subnet): string {
  const m = mask(subnet.prefix);
  const first = ((ipv4ToInt(subnet.address) ?? 0) & m) >>> 0;
  return `${intToIpv4(first)}-${intToIpv4((first | ~m) >>> 0)}`;
}

export const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '::1' || address === 'localhost';

function prefixOf(info: NetworkInterfaceInfo): number {
  const fromCidr = info.cidr ? Number(info.cidr.split('/')[1]) : NaN;
  if (Number.isInteger(fromCidr)) return fromCidr;
  let bits = 0;
  for (let m = ipv4ToInt(info.netmask) ?? 0xffffffff; m; m = (m << 1) >>> 0) bits++;
  return bits;
}

/**
 * The reach of a stand-in bound to `host`: 0.0.0.0 (or ::) serves every LAN interface's
 * subnet, one IPv4 address the subnet it is on, anything else (127.0.0.1, localhost) loopback.
 */
export function networkReach(
  host: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
  typeOf: (name: string) => number | null = linkType,
): Reach {
  const all: (Subnet & { lan: boolean })[] = [];
  for (const [iface, list] of Object.entries(interfaces)) {
    for (const info of list ?? []) {
      if (info.family !== 'IPv4' || info.internal || info.address.startsWith('169.254.') || isLoopback(info.address)) continue;
      all.push({ iface, address: info.address, prefix: prefixOf(info), lan: isLanInterface(iface, typeOf(iface)) });
    }
  }
  const strip = ({ iface, address, prefix }: Subnet): Subnet => ({ iface, address, prefix });
  const anyAddress = host === '0.0.0.0' || host === '::';
  const oneAddress = !anyAddress && ipv4ToInt(host) !== null && !isLoopback(host);
  const served = (s: Subnet & { lan: boolean }) => (anyAddress ? s.lan : oneAddress ? s.address === host : false);
  if (oneAddress && !all.some((s) => s.address === host)) all.push({ iface: '(HOST)', address: host, prefix: 32, lan: true });
  return {
    loopbackOnly: !anyAddress && !oneAddress,
    lan: all.filter(served).map(strip),
    denied: all.filter((s) => !served(s)).map(strip),
  };
}

/** The media's own LAN addresses (the host candidates it binds besides loopback). */
export function lanMediaAddresses(reach: Reach): string[] {
  return [...new Set(reach.lan.map((s) => s.address))];
}

/**
 * Why the media may not send to `address` (a candidate's connection address), or null when it
 * may: on a served subnet and on no denied one; loopback only when bound to loopback.
 */
export function refusedPeer(reach: Reach, address: string): string | null {
  const lower = address.toLowerCase();
  if (lower.endsWith('.local') || lower.endsWith('.local.')) return 'an mDNS name (.local): not looked up';
  if (ipv4ToInt(address) === null) return address.includes(':') ? 'IPv6: the media serves IPv4 only' : 'not an IPv4 address: no name is looked up';
  if (isLoopback(address)) return reach.loopbackOnly ? null : 'loopback: the stand-in is not bound to loopback only';
  if (reach.loopbackOnly) return 'not loopback: the stand-in is bound to loopback';
  const denied = reach.denied.find((s) => inSubnet(address, s));
  if (denied) return `on ${denied.iface}'s subnet, which the media does not serve`;
  return reach.lan.some((s) => inSubnet(address, s)) ? null : 'outside the LAN subnets the stand-in serves';
}

export interface DroppedCandidate {
  address: string;
  reason: string;
}

/**
 * The offer without the candidate lines the media may not send to (refusedPeer), so werift
 * never checks them nor looks their names up. A browser that offered only `.local` host
 * candidates still connects: its checks reach the stand-in's own host candidates and are
 * answered to where they came from (a peer-reflexive candidate), or go through the relay.
 */
export function filterOfferCandidates(reach: Reach, sdp: string): { sdp: string; kept: string[]; dropped: DroppedCandidate[] } {
  const kept: string[] = [];
  const dropped: DroppedCandidate[] = [];
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(/\r?\n/).filter((line) => {
    // a=candidate:foundation component transport priority connection-address port typ ...
    const m = /^a=candidate:\S+ \d+ \S+ \d+ (\S+) \d+ typ /i.exec(line);
    if (!line.toLowerCase().startsWith('a=candidate:')) return true;
    const address = m?.[1] ?? '';
    const reason = m ? refusedPeer(reach, address) : 'malformed candidate line';
    if (reason) dropped.push({ address: address || line.slice(0, 80), reason });
    else kept.push(address);
    return reason === null;
  });
  return { sdp: lines.join(eol), kept, dropped };
}

/** The reach of a media server on `hostAddresses` (server/lan.ts mediaHostAddresses): several mean every interface. */
export function mediaReach(hostAddresses: readonly string[], interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>, typeOf?: (name: string) => number | null): Reach {
  const host = hostAddresses.length > 1 ? '0.0.0.0' : (hostAddresses[0] ?? '127.0.0.1');
  return networkReach(host, interfaces, typeOf);
}
