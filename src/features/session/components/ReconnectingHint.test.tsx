import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders, validAccount } from '../../../test/render.tsx';
import { avatarMovedAgain, mediaReconnected, mediaReconnectStarted, sessionSlice, signalingStateChanged, type SessionState } from '../sessionSlice.ts';
import { LiveScreen } from './LiveScreen.tsx';

function session(overrides: Partial<SessionState>): SessionState {
  return { ...sessionSlice.getInitialState(), status: 'live', roomId: 'room-1', signaling: 'open', media: 'connected', ...overrides };
}

function renderLive(overrides: Partial<SessionState> = {}) {
  return renderWithProviders(<LiveScreen />, { preloadedState: { account: validAccount(), session: session(overrides) } });
}

const video = () => screen.getByLabelText('Avatar video').closest('.avatar-video');

afterEach(() => vi.restoreAllMocks());

describe('the reconnect hint (docs/requirements.md R117)', () => {
  it('says Reconnecting in a polite status over a dimmed avatar while the signaling channel reconnects, and goes when it is open', () => {
    const { store } = renderLive();
    expect(screen.queryByRole('status')).toBeNull();
    act(() => {
      store.dispatch(signalingStateChanged('reconnecting'));
    });
    expect(screen.getByRole('status')).toHaveTextContent('Reconnecting');
    expect(screen.getByRole('status').parentElement).toHaveAttribute('aria-live', 'polite');
    expect(video()).toHaveClass('avatar-video--reconnecting');
    act(() => {
      store.dispatch(signalingStateChanged('open'));
    });
    expect(screen.queryByRole('status')).toBeNull();
    expect(video()).not.toHaveClass('avatar-video--reconnecting');
  });

  it('stays through a media reconnect until the avatar moves again', () => {
    const { store } = renderLive();
    act(() => {
      store.dispatch(mediaReconnectStarted());
    });
    expect(screen.getByRole('status')).toHaveTextContent('Reconnecting');
    act(() => {
      store.dispatch(mediaReconnected({ how: 'new' }));
    });
    expect(screen.getByRole('status')).toHaveTextContent('Reconnecting');
    act(() => {
      store.dispatch(avatarMovedAgain());
    });
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('is in the visitor\'s language', async () => {
    renderWithProviders(<LiveScreen />, { preloadedState: { account: validAccount(), session: session({ signaling: 'resuming' }) }, lang: 'zh' });
    expect(await screen.findByRole('status')).toHaveTextContent('正在重新连接');
  });

  it('is not shown while the session is still connecting', () => {
    renderLive({ status: 'connecting', signaling: 'reconnecting' });
    expect(screen.queryByRole('status')).toBeNull();
  });
});
