import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { Providers } from './app/providers.tsx';
import { APP_VERSION, environment } from './app/environments.ts';
import { getQueryParam, parseRoute } from './app/routes.ts';
import { makeStore, rootReducer } from './app/store.ts';
import { installSessionLogHotkey } from './features/sessionLog/hotkey.ts';
import { connectLoggerToRecorder } from './features/sessionLog/logSink.ts';
import { createRecorder } from './features/sessionLog/recorder.ts';
import { isStatsPanelRequested } from './features/stats/selectors.ts';
import { statsPanelEnabled } from './features/stats/statsSlice.ts';
import { createCoreServices } from './services/index.ts';
import { langInitialized } from './features/locale/localeSlice.ts';
import { pickInitialLang, readStoredLang } from './features/locale/langs.ts';
import { LoadedLiveView, loadLiveChunk } from './app/liveChunk.tsx';
import './app/styles/index.css';

// The replay viewer is a support tool: it never weighs on the visitor's first paint.
const ReplayPage = lazy(() => import('./features/replay/components/ReplayPage.tsx'));

/**
 * Debug builds only (environment.debugTools: `local` and `debug`, never a
 * product build): `window.__APP_DEBUG_STORE__.getState()` reads the live Redux
 * state. The end-to-end tests compare it with the replay of the downloaded
 * session log (tests/e2e/support-tools.spec.ts); support staff can read it from
 * the console. Read-only on purpose: no dispatch, so nothing can drive the app
 * around its sagas.
 */
function exposeStoreForDebugging(getState: () => unknown): void {
  Object.defineProperty(window, '__APP_DEBUG_STORE__', { value: Object.freeze({ getState }), configurable: false });
}

function mount(): void {
  const route = parseRoute(window.location);
  // docs/requirements.md R9: without an id in the URL nothing loads, not even the store.
  if (route.kind === 'none') return;
  const container = document.getElementById('root');
  if (!container) return;
  const root = createRoot(container);

  if (route.kind === 'replay') {
    // No services: the replay viewer drives the store from a recorded log, never the network.
    // Its own controls speak the support person's language (no boot saga runs here).
    const viewerStore = makeStore();
    viewerStore.dispatch(langInitialized(pickInitialLang(readStoredLang(), navigator.languages)));
    root.render(
      <StrictMode>
        <Providers store={viewerStore}>
          <Suspense fallback={null}>
            <ReplayPage />
          </Suspense>
        </Providers>
      </StrictMode>,
    );
    return;
  }

  // The boot saga reads the route, device id, stored language and account by itself.
  // The session log starts before the store so it sees the store's first action; it
  // continues a log persisted in this tab, so a reload after a failure keeps the story.
  const recorder = createRecorder({
    reducer: rootReducer,
    storage: window.sessionStorage,
    lifecycle: window,
    appVersion: APP_VERSION,
    environment: environment.name,
  });
  connectLoggerToRecorder(recorder);
  // The live screen, chat, voice and stats come in a chunk of their own, fetched while the
  // visitor reads the pre-session screen (sagas/liveLoader.ts).
  const store = makeStore({ sagas: { services: createCoreServices(), loadLive: loadLiveChunk }, sessionLog: recorder });
  if (environment.debugTools) {
    installSessionLogHotkey(window, store.dispatch);
    exposeStoreForDebugging(store.getState);
  }
  if (isStatsPanelRequested(getQueryParam('showBitrate'), environment.showBitrate)) store.dispatch(statsPanelEnabled());
  root.render(
    <StrictMode>
      <Providers store={store}>
        {/* ReplayScreen renders <App> with the same live screen, imported statically. */}
        <App live={LoadedLiveView} />
      </Providers>
    </StrictMode>,
  );
}

// In a task after the modules' evaluation: two shorter tasks on a slow phone instead of one long one.
setTimeout(mount, 0);
