/**
 * Test instrumentation (never shipped): an init script that wraps
 * `navigator.wakeLock.request` so a test can see the screen wake locks the page took and
 * whether each is still held. The browser's own WakeLock does the work; the wrapper only
 * watches it.
 */
import type { Page } from '@playwright/test';

export interface WakeLockCounts {
  /** request('screen') calls. */
  requested: number;
  /** Locks granted and not released. */
  held: number;
  /** Locks granted and then released (by the page or the browser). */
  released: number;
  /** Why requests failed (DOMException names). */
  refused: string[];
  /** Whether the page has navigator.wakeLock at all. */
  available: boolean;
}

declare global {
  interface Window {
    __wakeLock?: { sentinels: WakeLockSentinel[]; requested: number; refused: string[] };
  }
}

/** Runs in the page before any of its scripts (exported for the engine lanes' drivers). */
export function instrumentWakeLock(): void {
  const registry = { sentinels: [] as WakeLockSentinel[], requested: 0, refused: [] as string[] };
  Object.defineProperty(window, '__wakeLock', { value: registry, enumerable: false });
  const wakeLock = navigator.wakeLock as WakeLock | undefined;
  if (!wakeLock) return;
  const request = wakeLock.request.bind(wakeLock);
  wakeLock.request = async (type?: WakeLockType) => {
    registry.requested += 1;
    try {
      const sentinel = await request(type);
      registry.sentinels.push(sentinel);
      return sentinel;
    } catch (error) {
      registry.refused.push(error instanceof Error ? error.name : String(error));
      throw error;
    }
  };
}

/** Runs in the page: the counts so far. */
export function readWakeLockCounts(): WakeLockCounts {
  const registry = window.__wakeLock;
  if (!registry) throw new Error('installWakeLockCounters() was not called before the page loaded');
  return {
    requested: registry.requested,
    held: registry.sentinels.filter((s) => !s.released).length,
    released: registry.sentinels.filter((s) => s.released).length,
    refused: [...registry.refused],
    available: 'wakeLock' in navigator,
  };
}

export async function installWakeLockCounters(page: Page): Promise<void> {
  await page.addInitScript(instrumentWakeLock);
}

export const wakeLockCounts = (page: Page): Promise<WakeLockCounts> => page.evaluate(readWakeLockCounts);
