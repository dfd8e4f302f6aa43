import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../../app/store.ts';
import { renderWithProviders, validAccount } from '../../../test/render.tsx';
import { ReplayScreen } from './ReplayScreen.tsx';

// Renders the whole app in jsdom: seconds on a loaded 2-core machine.
describe('ReplayScreen', { timeout: 20_000 }, () => {
  afterEach(() => vi.restoreAllMocks());

  it('renders the app from a state, and a notice instead of crashing on a state it cannot render', async () => {
    const good = { ...makeStore().getState(), account: validAccount(), locale: { lang: 'en' as const, pickerOpen: false } };
    // React reports the caught render error on the console; that is expected here.
    vi.spyOn(console, 'error').mockImplementation(() => {});
    // A log from an app version whose chat slice had another shape.
    const foreign = { ...good, session: { ...good.session, status: 'live' }, chat: { ids: [], entities: {} } };
    const { rerender } = renderWithProviders(<ReplayScreen state={foreign} />);
    expect(await screen.findByText(/This app version cannot show the screen for this state/)).toBeInTheDocument();

    rerender(<ReplayScreen state={good} />);
    // The replayed screen speaks the language of the replayed state.
    expect(await screen.findByRole('button', { name: 'Start chat' })).toBeInTheDocument();
    expect(screen.queryByText(/This app version cannot show/)).not.toBeInTheDocument();
  });

  it('renders the voice controls the visitor had: hold to talk in speak mode, hang up in a call', async () => {
    const base = makeStore().getState();
    const live = { ...base, account: validAccount(), locale: { lang: 'en' as const, pickerOpen: false }, session: { ...base.session, status: 'live' as const } };
    const { rerender } = renderWithProviders(<ReplayScreen state={{ ...live, input: { ...live.input, mode: 'speak' as const } }} />);
    expect(await screen.findByRole('button', { name: 'Hold to talk' })).toBeInTheDocument();

    rerender(<ReplayScreen state={{ ...live, input: { ...live.input, mode: 'call' as const, previousMode: 'speak' as const } }} />);
    expect(await screen.findByRole('button', { name: 'Hang up' })).toBeInTheDocument();
  });
});
