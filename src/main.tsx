import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { Providers } from './app/providers.tsx';
import { parseRoute } from './app/routes.ts';
import { makeStore } from './app/store.ts';
import { ChatLog } from './features/chat/components/ChatLog.tsx';
import { InputBar } from './features/input/components/InputBar.tsx';
import { StatsPanel } from './features/stats/components/StatsPanel.tsx';
import { createServices } from './services/index.ts';
import './app/styles/index.css';

// The replay viewer is a support tool: it never weighs on the visitor's first paint.
const ReplayPage = lazy(() => import('./features/replay/components/ReplayPage.tsx'));

function mount(): void {
  const route = parseRoute(window.location);
  // Spec section 2: without an id in the URL nothing loads, not even the store.
  if (route.kind === 'none') return;
  const container = document.getElementById('root');
  if (!container) return;
  const root = createRoot(container);

  if (route.kind === 'replay') {
    // No services: the replay viewer drives the store from a recorded log, never the network.
    root.render(
      <StrictMode>
        <Providers store={makeStore()}>
          <Suspense fallback={null}>
            <ReplayPage />
          </Suspense>
        </Providers>
      </StrictMode>,
    );
    return;
  }

  // The boot saga reads the route, device id, stored language and account by itself.
  const store = makeStore({ services: createServices() });
  root.render(
    <StrictMode>
      <Providers store={store}>
        {/* The live screen's slots; ReplayScreen renders <App> with the same ones. */}
        <App chatLog={<ChatLog />} inputBar={<InputBar />} overlay={<StatsPanel />} />
      </Providers>
    </StrictMode>,
  );
}

mount();
