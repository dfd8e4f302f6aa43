/**
 * The one import() of the live chunk (src/live/index.ts), which the live loader saga
 * calls (sagas/liveLoader.ts), and the live screen rendered from it once it is here.
 */
import { useSyncExternalStore } from 'react';
import type * as LiveChunkModule from '../live/index.ts';

type LiveModule = typeof LiveChunkModule;

let pending: Promise<LiveModule> | null = null;
let loaded: LiveModule | null = null;
const listeners = new Set<() => void>();

/** Vite's message when a chunk's stylesheet could not be fetched (its preload helper): the URL follows. */
const STYLESHEET_FAILED = /^Unable to preload CSS for (\S+)/;

/** Stylesheets of the chunk whose fetch failed and that have not been fetched since. */
const failedStylesheets = new Set<string>();

/** Fetches a stylesheet again with a fresh <link> (the failed one is dropped); rejects if it fails again. */
function refetchStylesheet(href: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    link.addEventListener('load', () => {
      failedStylesheets.delete(href);
      resolve();
    });
    link.addEventListener('error', () => {
      link.remove();
      reject(new Error(`stylesheet ${href} did not load`));
    });
    for (const failed of document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')) if (failed.href === href) failed.remove();
    document.head.append(link);
  });
}

/**
 * The chunk's import. Vite's preload helper keeps a stylesheet that failed to load as
 * done for good (a later import of the chunk goes on without it, unstyled) and fails the
 * import that saw it fail. Here a failed stylesheet does not fail the import by itself
 * (the helper's `vite:preloadError`, prevented): it is remembered, and fetched again by
 * hand once the chunk's scripts are in, before the import counts as done. A script that
 * fails still fails the import, and the next one fetches it again.
 */
function importLiveChunk(): Promise<LiveModule> {
  const onPreloadError = (event: Event) => {
    const error = (event as Event & { payload?: unknown }).payload;
    const failed = error instanceof Error ? STYLESHEET_FAILED.exec(error.message) : null;
    if (!failed?.[1]) return;
    event.preventDefault();
    failedStylesheets.add(failed[1]);
  };
  window.addEventListener('vite:preloadError', onPreloadError);
  return import('../live/index.ts')
    .finally(() => window.removeEventListener('vite:preloadError', onPreloadError))
    .then(async (module) => {
      await Promise.all([...failedStylesheets].map(refetchStylesheet));
      return module;
    });
}

/** The chunk's module; a failed import is forgotten, so the next call fetches again. */
export function loadLiveChunk(): Promise<LiveModule> {
  pending ??= importLiveChunk().then(
    (module) => {
      loaded = module;
      for (const listener of [...listeners]) listener();
      return module;
    },
    (error: unknown) => {
      pending = null;
      throw error;
    },
  );
  return pending;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * The live screen, once the chunk is here (it always is by the time a session mounts it:
 * the session's sagas come with it); nothing before. Rendered at once, with no suspense,
 * so its <video> is there when the stream comes.
 */
export function LoadedLiveView({ covered }: { covered: boolean }) {
  const chunk = useSyncExternalStore(subscribe, () => loaded);
  return chunk ? <chunk.LiveView covered={covered} /> : null;
}
