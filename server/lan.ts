/**
 * `npm start -- --lan`: the demo on a phone on the same network. A phone needs HTTPS for a
 * secure context (no microphone without one) and addresses it can route to, so this module
 * decides which addresses the stand-in offers, makes the self-signed certificate for them
 * and prints what to open on the phone.
 *
 * - The certificate is made by `selfsigned` on the first run and kept outside the repository
 *   (`$XDG_CONFIG_HOME/avatar-chat/lan-cert`, else `~/.config/avatar-chat/lan-cert`), so the
 *   phone's "accept this certificate" survives restarts. It is made again when it is about to
 *   expire or does not name one of the machine's current LAN addresses.
 * - The media (WHEP's host candidates) follows HOST: loopback only by default, every LAN
 *   address plus loopback when bound to every interface.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { generate } from 'selfsigned';
import { lanMediaAddresses, networkReach, VIRTUAL_INTERFACE } from './reach.ts';

export interface TlsFiles {
  key: string;
  cert: string;
}

const DAY_MS = 86_400_000;
const VALID_DAYS = 365;
/** A certificate with less than this left is made again rather than expire during a demo. */
const RENEW_BEFORE_DAYS = 30;

/** The machine's non-internal, non-link-local IPv4 addresses, physical interfaces first. */
export function lanAddresses(interfaces = networkInterfaces()): string[] {
  const found: { name: string; address: string }[] = [];
  for (const [name, list] of Object.entries(interfaces)) {
    for (const info of list ?? []) {
      if (info.family === 'IPv4' && !info.internal && !info.address.startsWith('169.254.')) found.push({ name, address: info.address });
    }
  }
  // Interfaces that are rarely the phone's network (containers, VMs, tunnels) are listed last.
  const rank = (name: string) => (VIRTUAL_INTERFACE.test(name) ? 1 : 0);
  return [...new Set(found.sort((a, b) => rank(a.name) - rank(b.name)).map((f) => f.address))];
}

/**
 * The addresses the media binds and announces as ICE host candidates, from HOST: every LAN
 * interface's (plus loopback) when bound to all of them, otherwise HOST's own address. A
 * docker, VM or VPN interface's address is not among them (server/reach.ts): a phone cannot
 * use it, and the relay must not reach it.
 */
export function mediaHostAddresses(host: string, lan: () => string[] = () => lanMediaAddresses(networkReach('0.0.0.0'))): string[] {
  if (host === '0.0.0.0' || host === '::') return [...lan(), '127.0.0.1'];
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? [host] : ['127.0.0.1'];
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * Under `--lan`, whether a request is for the control endpoints (docs/contract.md C11) and
 * comes from another machine. The path is read as the router reads it (dot segments resolved,
 * so `/./__standin/faults` is one), and a URL that cannot be read counts as one.
 */
export function controlFromAfar(rawUrl: string | undefined, remoteAddress: string | undefined): boolean {
  if (isLoopbackAddress(remoteAddress)) return false;
  try {
    return new URL(rawUrl ?? '/', 'http://standin.invalid').pathname.startsWith('/__standin');
  } catch {
    return true;
  }
}

export function defaultCertDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'avatar-chat', 'lan-cert');
}

/** The IP addresses and DNS names a certificate is valid for, e.g. ['DNS:localhost', 'IP:127.0.0.1']. */
function altNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter(Boolean)
    .map((entry) => entry.replace(/^IP Address:/, 'IP:'));
}

/** Why the stored certificate cannot be used for `addresses` and `names` (null: it can). */
function unusable(files: TlsFiles, addresses: string[], now: number, names: readonly string[] = []): string | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(files.cert);
    if (!cert.checkPrivateKey(createPrivateKey(files.key))) return 'its key does not match';
  } catch (err) {
    return `it cannot be read (${(err as Error).message})`;
  }
  if (Date.parse(cert.validTo) - now < RENEW_BEFORE_DAYS * DAY_MS) return `it expires on ${cert.validTo}`;
  const has = altNames(cert);
  const missing = [...addresses.filter((ip) => !has.includes(`IP:${ip}`)), ...names.filter((name) => !has.includes(`DNS:${name}`))];
  return missing.length > 0 ? `it does not name ${missing.join(', ')}` : null;
}

export interface CertificateResult extends TlsFiles {
  dir: string;
  /** Why it was made now, or null when the stored one was used. */
  madeBecause: string | null;
}

/**
 * The stored certificate for localhost, 127.0.0.1, `addresses` and the host `names` the
 * stand-in was told to serve (STANDIN_ALLOWED_HOSTS), or a new one (written to `dir`, the key
 * readable by this user only) when there is none or it cannot be used.
 */
export async function lanCertificate(addresses: string[], dir = defaultCertDir(), now = Date.now(), names: readonly string[] = []): Promise<CertificateResult> {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  let why: string | null = 'there is none yet';
  try {
    const stored = { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
    why = unusable(stored, addresses, now, names);
    if (!why) return { ...stored, dir, madeBecause: null };
  } catch {
    /* none yet */
  }
  const ips = [...new Set(['127.0.0.1', ...addresses])];
  const pems = await generate([{ name: 'commonName', value: 'Avatar chat demo (self-signed)' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + VALID_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...['localhost', ...names.filter((n) => n !== 'localhost')].map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(certFile, pems.cert);
  return { key: pems.private, cert: pems.cert, dir, madeBecause: why };
}

/** What `npm start -- --lan` prints: the demo URL on each address, and a QR code of the first. */
export async function lanBanner(addresses: string[], port: number): Promise<string> {
  const urls = addresses.map((ip) => `https://${ip}:${port}/25d/demo`);
  if (urls.length === 0) return `Demo: https://127.0.0.1:${port}/25d/demo (this machine has no LAN address)\n`;
  const qr = await QRCode.toString(urls[0]!, { type: 'terminal', small: true });
  return `${urls.map((url) => `Demo: ${url}`).join('\n')}\n${qr}${qr.endsWith('\n') ? '' : '\n'}`;
}
