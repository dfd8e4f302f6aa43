import { useMemo } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { App } from '../../../app/App.tsx';
import { Providers } from '../../../app/providers.tsx';
import { makeStore, type RootState } from '../../../app/store.ts';
import { LiveView } from '../../../live/LiveView.tsx';
import { replayMessages } from '../messages.ts';
import { ScreenBoundary } from './ScreenBoundary.tsx';
import './ReplayScreen.css';

// Widened to the untyped descriptor: react-intl types defineMessages entries as taking no values.
const SCREEN_FAILED: MessageDescriptor = replayMessages.screenFailed;

/**
 * The real app UI rendered from a replayed state, inside a phone-sized frame.
 * Each state gets its own store made without services, so no saga runs and
 * nothing reaches the network; the UI reads it exactly as the visitor's did.
 * The frame is a containing block for fixed-position UI (dialogs, toasts), and
 * inert: the screen is driven by the log, so it must neither take input nor
 * pull focus away from the controls when a replayed alert opens.
 *
 * The live screen is the one main.tsx passes to <App> from the live chunk, so the screen is the visitor's.
 */
export function ReplayScreen({ state }: { state: unknown }) {
  const intl = useIntl();
  const store = useMemo(() => makeStore({ preloadedState: state as Partial<RootState> }), [state]);
  return (
    <section className="replay-screen" aria-label={intl.formatMessage(replayMessages.screen)}>
      <div className="replay-screen__frame" inert>
        <ScreenBoundary
          resetKey={store}
          fallback={(error) => <p className="replay-screen__failed">{intl.formatMessage(SCREEN_FAILED, { reason: error.message })}</p>}
        >
          <Providers store={store}>
            <App live={LiveView} />
          </Providers>
        </ScreenBoundary>
      </div>
    </section>
  );
}
