/**
 * The session's current WHEP connection, for readers outside the media saga
 * (the stats sampler's StatsSource). Null between connections, e.g. during a
 * media reconnect, so a sample never reads a closed peer connection.
 */
import type { WhepConnection } from './whep.ts';

export interface LivePeerHolder {
  set(connection: WhepConnection | null): void;
  get(): WhepConnection | null;
  /** The current connection's stats, or null when there is none. */
  getStats(): Promise<RTCStatsReport | null>;
}

export function createLivePeerHolder(): LivePeerHolder {
  let current: WhepConnection | null = null;
  return {
    set(connection) {
      current = connection;
    },
    get: () => current,
    getStats: () => (current ? current.getStats() : Promise.resolve(null)),
  };
}
