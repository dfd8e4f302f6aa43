/**
 * The one import() of the live chunk (src/live/index.ts): the live loader saga and the
 * lazily rendered live screen share it. A failed import is forgotten, so the next call
 * fetches again.
 */
import { lazy } from 'react';
import type * as LiveChunkModule from '../live/index.ts';

type LiveModule = typeof LiveChunkModule;

let pending: Promise<LiveModule> | null = null;

export function loadLiveChunk(): Promise<LiveModule> {
  pending ??= import('../live/index.ts').catch((error: unknown) => {
    pending = null;
    throw error;
  });
  return pending;
}

/**
 * The live screen, rendered once a session has started, i.e. once the live chunk is here:
 * its promise is already settled, so it suspends for a microtask under the pre-session screen.
 */
export const LazyLiveView = lazy(() => loadLiveChunk().then((chunk) => ({ default: chunk.LiveView })));
