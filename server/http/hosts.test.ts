import { describe, expect, it } from 'vitest';
import { allowedHosts, hostName, parseAllowedHosts } from './hosts.ts';

describe('allowed hosts (DNS rebinding)', () => {
  const hosts = allowedHosts(parseAllowedHosts('demo-box.local, .lab.example'));

  it.each([
    ['localhost:8080'],
    ['LOCALHOST'],
    ['app.localhost:5173'],
    ['127.0.0.1:8080'],
    ['192.168.1.23:8443'],
    ['[::1]:8080'],
    ['[fe80::1]'],
    ['demo-box.local:8443'],
    ['Demo-Box.Local.'],
    ['lab.example'],
    ['pc7.lab.example:8080'],
  ])('serves %s', (host) => {
    expect(hosts.allows(host)).toBe(true);
  });

  it.each([
    ['rebind.example:8080'],
    ['localhost.rebind.example'],
    ['demo-box.local.rebind.example'],
    ['evillab.example'],
    ['example'],
    ['0x7f.1'],
    [''],
    ['evil.example/"><script>'],
    ['127.0.0.1:8080:1'],
  ])('refuses %s', (host) => {
    expect(hosts.allows(host)).toBe(false);
  });

  it('serves a request without Host (HTTP/1.0: no browser sends one)', () => {
    expect(hosts.allows(undefined)).toBe(true);
  });

  it('reads the name of a Host header', () => {
    expect(hostName('[::1]:8080')).toBe('::1');
    expect(hostName('Box.Local.:443')).toBe('box.local');
    expect(hostName('a b')).toBeNull();
  });

  it('refuses a setting that is not host names, saying which', () => {
    expect(parseAllowedHosts(undefined)).toEqual([]);
    expect(parseAllowedHosts(' a.local  b.local,c.local ')).toEqual(['a.local', 'b.local', 'c.local']);
    expect(() => parseAllowedHosts('box.local, http://evil')).toThrow(/"http:\/\/evil" is not a host name/);
    expect(() => parseAllowedHosts('*')).toThrow(/not a host name/);
  });
});
