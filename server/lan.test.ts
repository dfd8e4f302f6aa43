import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controlFromAfar, defaultCertDir, isLoopbackAddress, lanAddresses, lanBanner, lanCertificate, mediaHostAddresses } from './lan.ts';

const v4 = (address: string, internal = false) => ({ address, family: 'IPv4', internal }) as NetworkInterfaceInfo;
const v6 = (address: string) => ({ address, family: 'IPv6', internal: false }) as NetworkInterfaceInfo;

describe('lanAddresses', () => {
  it('lists the non-internal IPv4 addresses, physical interfaces before containers and tunnels, without link-local ones', () => {
    const found = lanAddresses({
      lo: [v4('127.0.0.1', true)],
      docker0: [v4('172.17.0.1')],
      wlan0: [v4('192.168.1.23'), v6('fe80::1')],
      eth1: [v4('169.254.10.10'), v4('10.0.0.5')],
      'br-1234': [v4('172.18.0.1')],
    });
    expect(found).toEqual(['192.168.1.23', '10.0.0.5', '172.17.0.1', '172.18.0.1']);
  });
});

describe('mediaHostAddresses', () => {
  it('is loopback only by default, every LAN address plus loopback on 0.0.0.0, and HOST itself when it names one address', () => {
    const lan = () => ['192.168.1.23', '10.0.0.5'];
    expect(mediaHostAddresses('127.0.0.1', lan)).toEqual(['127.0.0.1']);
    expect(mediaHostAddresses('0.0.0.0', lan)).toEqual(['192.168.1.23', '10.0.0.5', '127.0.0.1']);
    expect(mediaHostAddresses('10.0.0.5', lan)).toEqual(['10.0.0.5']);
    expect(mediaHostAddresses('localhost', lan)).toEqual(['127.0.0.1']);
  });
});

describe('controlFromAfar', () => {
  it('refuses the control endpoints to any address but loopback, however the path is spelled', () => {
    expect(controlFromAfar('/__standin/faults', '192.168.1.40')).toBe(true);
    expect(controlFromAfar('/./__standin/faults', '192.168.1.40')).toBe(true);
    expect(controlFromAfar('/25d/../__standin/events?x=1', '::ffff:192.168.1.40')).toBe(true);
    expect(controlFromAfar('http://evil.example/__standin/say', '10.0.0.9')).toBe(true);
    for (const loopback of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1']) expect(controlFromAfar('/__standin/faults', loopback)).toBe(false);
    expect(controlFromAfar('/get/route', '192.168.1.40')).toBe(false);
    expect(controlFromAfar('/25d/demo', '192.168.1.40')).toBe(false);
    expect(controlFromAfar('/__standin/faults', undefined)).toBe(true);
  });

  it('isLoopbackAddress knows loopback only', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('192.168.1.2')).toBe(false);
    expect(isLoopbackAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isLoopbackAddress('1270::1')).toBe(false);
  });
});

describe('lanCertificate', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'lan-cert-test-')), 'lan-cert');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  const names = (pem: string) => new X509Certificate(pem).subjectAltName;

  it('is made on the first run for localhost, loopback and the LAN addresses, its key readable by this user only, and kept', async () => {
    const first = await lanCertificate(['192.168.1.23'], dir);
    expect(first.madeBecause).toBe('there is none yet');
    expect(names(first.cert)).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:192.168.1.23');
    const cert = new X509Certificate(first.cert);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.ca).toBe(false);
    expect(statSync(join(dir, 'key.pem')).mode & 0o077).toBe(0);
    expect(readFileSync(join(dir, 'cert.pem'), 'utf8')).toBe(first.cert);

    const again = await lanCertificate(['192.168.1.23'], dir);
    expect(again.madeBecause).toBeNull();
    expect(again.cert).toBe(first.cert);
    expect(again.key).toBe(first.key);
  });

  it('is made again when a LAN address is new, when it nears its end, or when the files are broken', async () => {
    const first = await lanCertificate(['192.168.1.23'], dir);
    const moved = await lanCertificate(['10.0.0.5'], dir);
    expect(moved.madeBecause).toBe('it does not name 10.0.0.5');
    expect(names(moved.cert)).toContain('IP Address:10.0.0.5');
    expect(moved.cert).not.toBe(first.cert);

    const inElevenMonths = Date.now() + 340 * 86_400_000;
    const renewed = await lanCertificate(['10.0.0.5'], dir, inElevenMonths);
    expect(renewed.madeBecause).toMatch(/^it expires on /);
    expect(Date.parse(new X509Certificate(renewed.cert).validTo)).toBeGreaterThan(inElevenMonths + 300 * 86_400_000);

    writeFileSync(join(dir, 'key.pem'), first.key);
    expect((await lanCertificate(['10.0.0.5'], dir, inElevenMonths)).madeBecause).toBe('its key does not match');
    writeFileSync(join(dir, 'cert.pem'), 'not a certificate');
    expect((await lanCertificate(['10.0.0.5'], dir)).madeBecause).toMatch(/^it cannot be read/);
  });

  it('lives under XDG_CONFIG_HOME, else ~/.config, never in the repository', () => {
    expect(defaultCertDir({ XDG_CONFIG_HOME: '/x/config' })).toBe('/x/config/avatar-chat/lan-cert');
    expect(defaultCertDir({})).toMatch(/\/\.config\/avatar-chat\/lan-cert$/);
  });
});

describe('lanBanner', () => {
  it('prints the demo URL on each address and a QR code of the first, ending its last line', async () => {
    const banner = await lanBanner(['192.168.1.23', '10.0.0.5'], 8080);
    const lines = banner.split('\n');
    expect(lines.slice(0, 2)).toEqual(['Demo: https://192.168.1.23:8080/25d/demo', 'Demo: https://10.0.0.5:8080/25d/demo']);
    // The QR code: rows of block characters, as many as the code is tall.
    expect(lines.slice(2).filter((l) => /[█▀▄]/.test(l)).length).toBeGreaterThan(10);
    expect(banner.endsWith('\n')).toBe(true);
    expect(await lanBanner([], 8443)).toBe('Demo: https://127.0.0.1:8443/25d/demo (this machine has no LAN address)\n');
  });
});
