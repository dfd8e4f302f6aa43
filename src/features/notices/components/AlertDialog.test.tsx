import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { registerAvatarPlayer } from '../../session/components/avatarPlayback.ts';
import { catalogue } from '../messages.ts';
import { alertActionTaken, alertDismissed, alertShown } from '../noticesSlice.ts';
import { AlertDialog } from './AlertDialog.tsx';

describe('AlertDialog', () => {
  it('shows the alert as role=alert with an OK button that closes it', async () => {
    const user = userEvent.setup();
    const { store } = renderWithProviders(<AlertDialog />);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    act(() => {
      store.dispatch(alertShown({ text: 'no avatar available' }));
    });
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('no avatar available');
    expect(screen.getByRole('button', { name: 'OK' })).toHaveFocus();
    expect(screen.queryByRole('button', { name: 'Tap to play' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(store.getState().notices.alert).toBeNull();
  });

  it('localizes catalogue alerts: zh', () => {
    renderWithProviders(<AlertDialog />, {
      lang: 'zh',
      preloadedState: { notices: { toasts: [], alert: { key: 'a', kind: 'alert', message: { id: catalogue.iceError.id } } } },
    });
    expect(screen.getByRole('alert')).toHaveTextContent('webrtc连接异常，请稍后重试！');
    expect(screen.getByRole('button', { name: '确定' })).toBeInTheDocument();
  });

  it('a tapToPlay alert has a Tap to play button that plays the avatar and closes', async () => {
    const user = userEvent.setup();
    const player = vi.fn();
    const unregister = registerAvatarPlayer(player);
    try {
      const { store, actionTypes } = renderWithProviders(<AlertDialog />);
      act(() => {
        store.dispatch(alertShown({ id: catalogue.playFailed.id }, 'tapToPlay'));
      });
      expect(screen.getByRole('alert')).toHaveTextContent('Playback failed');
      await user.click(screen.getByRole('button', { name: 'Tap to play' }));
      expect(player).toHaveBeenCalledTimes(1);
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      // Told apart from OK, which declines (the session saga ends the session on it).
      expect(actionTypes()).toContain(alertActionTaken.type);
      expect(actionTypes()).not.toContain(alertDismissed.type);
    } finally {
      unregister();
    }
  });

  it('Escape closes it like OK', async () => {
    const user = userEvent.setup();
    const { store } = renderWithProviders(<AlertDialog />);
    act(() => {
      store.dispatch(alertShown({ text: 'x' }));
    });
    await user.keyboard('{Escape}');
    expect(store.getState().notices.alert).toBeNull();
  });
});
