/**
 * Test instrumentation (never shipped): an init script that wraps
 * `RTCPeerConnection` and `WebSocket` so a test can count the instances the
 * page created and how many of them are still open. A peer connection counts
 * as open until its signalingState is 'closed' (only close() does that); a
 * WebSocket until its readyState is CLOSING or CLOSED (close() was called, or the
 * server closed it). A socket the app closed on a path that had died stays CLOSING
 * until the browser gives up on its closing handshake (up to a minute): that is the
 * browser's wait, not the app's leak. Instances are held strongly, so one the app
 * forgot without closing still counts — that is the leak we look for.
 */
import type { Page } from '@playwright/test';

export interface LiveCounts {
  /** Peer connections created so far. */
  pcCreated: number;
  /** Peer connections not closed. */
  pcOpen: number;
  socketsCreated: number;
  /** When each WebSocket was created (the page's performance.now()), in order. */
  socketTimes: number[];
  /** WebSockets CONNECTING or OPEN: not closed by the app or the server. */
  socketsOpen: number;
}

interface Registry {
  pcs: RTCPeerConnection[];
  sockets: WebSocket[];
  socketTimes: number[];
}

declare global {
  interface Window {
    __counters?: Registry;
  }
}

/** Runs in the page before any of its scripts (exported for the engine lanes' drivers). */
export function instrumentCounters(): void {
  const registry: Registry = { pcs: [], sockets: [], socketTimes: [] };
  Object.defineProperty(window, '__counters', { value: registry, enumerable: false });

  const NativePc = window.RTCPeerConnection;
  class CountedPeerConnection extends NativePc {
    constructor(config?: RTCConfiguration) {
      super(config);
      registry.pcs.push(this);
    }
  }
  window.RTCPeerConnection = CountedPeerConnection;

  const NativeWs = window.WebSocket;
  class CountedWebSocket extends NativeWs {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      registry.sockets.push(this);
      registry.socketTimes.push(performance.now());
    }
  }
  window.WebSocket = CountedWebSocket;
}

export async function installCounters(page: Page): Promise<void> {
  await page.addInitScript(instrumentCounters);
}

export async function liveCounts(page: Page): Promise<LiveCounts> {
  return page.evaluate(readLiveCounts);
}

/** Runs in the page: the counts so far. */
export function readLiveCounts(): LiveCounts {
  const registry = window.__counters;
  if (!registry) throw new Error('installCounters() was not called before the page loaded');
  return {
    pcCreated: registry.pcs.length,
    pcOpen: registry.pcs.filter((pc) => pc.signalingState !== 'closed').length,
    socketsCreated: registry.sockets.length,
    socketTimes: [...registry.socketTimes],
    socketsOpen: registry.sockets.filter((ws) => ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN).length,
  };
}
