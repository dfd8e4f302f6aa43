/**
 * The app's only routes, parsed from `location` (no router: two URL shapes do not need one).
 *
 *   /25d/{id}      the home screen for account {id}
 *   /25d/replay    the session-log replay viewer
 *   anything else  nothing loads (docs/requirements.md R9)
 */
export type AppRoute = { kind: 'home'; id: string } | { kind: 'replay' } | { kind: 'none' };

/** The parts of `Location` the parser reads; tests pass plain objects. */
export interface LocationLike {
  pathname: string;
  search: string;
  hash: string;
}

export const BASE_PATH = '/25d/';

/** Ids are opaque to the client; a bounded, printable shape keeps garbage out of requests and storage. */
const ID_PATTERN = /^[^\s\p{C}/\\]{1,128}$/u;

export function parseRoute(location: LocationLike): AppRoute {
  const { pathname } = location;
  if (!pathname.startsWith(BASE_PATH)) return { kind: 'none' };
  // One segment after the base; a trailing slash is tolerated because people paste links.
  const rest = pathname.slice(BASE_PATH.length).replace(/\/$/, '');
  if (rest === '' || rest.includes('/')) return { kind: 'none' };
  let id: string;
  try {
    id = decodeURIComponent(rest);
  } catch {
    return { kind: 'none' };
  }
  if (id === 'replay') return { kind: 'replay' };
  return ID_PATTERN.test(id) ? { kind: 'home', id } : { kind: 'none' };
}

/**
 * A query parameter from the search string, or from after a `?` in the hash
 * (links shared from hash-routed pages carry them there). The search string wins.
 */
export function getQueryParam(name: string, location: LocationLike = window.location): string | null {
  const fromSearch = new URLSearchParams(location.search).get(name);
  if (fromSearch !== null) return fromSearch;
  const q = location.hash.indexOf('?');
  if (q === -1) return null;
  return new URLSearchParams(location.hash.slice(q + 1)).get(name);
}
