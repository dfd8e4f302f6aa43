/**
 * Which `Host` the stand-in answers to: the defence against DNS rebinding.
 *
 * A site the developer visits can point its own name at this machine once its page has
 * loaded (a short TTL, then another address). The browser then talks to the stand-in
 * believing it is that site, so `Origin` and `Host` both name that site and every
 * same-origin check passes. What gives it away is the name in `Host`: nobody reaches the
 * stand-in by the attacker's name on purpose. As Vite's `server.allowedHosts` and
 * webpack-dev-server's `allowedHosts` do, a request is served only when its Host is
 * `localhost` (or a name under `.localhost`), an IP address literal (a name can be
 * rebound, an address cannot: a page loaded from an address is that address's origin), or
 * a name the operator added (`STANDIN_ALLOWED_HOSTS`, e.g. the machine's `.local` name).
 * Every route, the app's files and both WebSocket upgrades go through this check.
 */
import { isIP } from 'node:net';

export interface AllowedHosts {
  /** Names added by the operator, lower case; a leading dot allows the name and every name under it. */
  readonly extra: readonly string[];
  /** Whether a request with this Host header may be served. */
  allows(hostHeader: string | undefined): boolean;
}

/** The name part of a Host header (brackets of an IPv6 literal removed), lower case; null when it is not host[:port]. */
export function hostName(hostHeader: string): string | null {
  const match = /^(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  if (!match?.[1]) return null;
  const name = match[1].toLowerCase();
  return name.startsWith('[') ? name.slice(1, -1) : name.replace(/\.$/, '');
}

/** Parses STANDIN_ALLOWED_HOSTS: names separated by commas or spaces; throws on one that is not a host name. */
export function parseAllowedHosts(raw: string | undefined): string[] {
  const names = (raw ?? '')
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  for (const name of names) {
    if (!/^\.?[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?)*$/.test(name) || name.length > 253) {
      throw new Error(`"${name.slice(0, 80)}" is not a host name (letters, digits, dots and hyphens; a leading dot allows the names under it)`);
    }
  }
  return names;
}

export function allowedHosts(extra: readonly string[] = []): AllowedHosts {
  const exact = new Set(extra.filter((n) => !n.startsWith('.')));
  const suffixes = extra.filter((n) => n.startsWith('.'));
  return {
    extra,
    allows(hostHeader) {
      // HTTP/1.0 without Host: not a browser (every browser sends Host), so not a rebinding page.
      if (hostHeader === undefined) return true;
      const name = hostName(hostHeader);
      if (name === null) return false;
      if (isIP(name) !== 0) return true;
      if (name === 'localhost' || name.endsWith('.localhost')) return true;
      if (exact.has(name)) return true;
      return suffixes.some((suffix) => name.endsWith(suffix) || name === suffix.slice(1));
    },
  };
}
