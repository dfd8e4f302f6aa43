import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PreSession } from '../features/session/components/PreSession.tsx';
import { renderWithProviders, validAccount } from '../test/render.tsx';
import { AccessGate, SHELL_PHOTO_WAIT_MS } from './AccessGate.tsx';

// The static shell's photo, asked for before the app, must stay the page's largest paint:
// React's copy only replaces it once it can paint itself, so it never paints first.
const shell = () => document.getElementById('shell');

function renderHome(account = validAccount()) {
  return renderWithProviders(
    <AccessGate>
      <PreSession />
    </AccessGate>,
    { preloadedState: { account } },
  );
}

beforeEach(() => {
  const el = document.createElement('div');
  el.id = 'shell';
  document.body.prepend(el);
});
afterEach(() => {
  shell()?.remove();
  vi.useRealTimers();
});

describe('the shell hands over to the pre-session screen', () => {
  it('stays until React’s photo has loaded and decoded, then goes', async () => {
    renderHome();
    const photo = screen.getByRole('img', { name: 'Photo of the assistant' });
    expect(shell()).not.toBeNull();
    const decode = vi.fn(() => Promise.resolve());
    Object.defineProperty(photo, 'decode', { value: decode });
    fireEvent.load(photo);
    expect(decode).toHaveBeenCalled();
    await act(() => Promise.resolve());
    expect(shell()).toBeNull();
  });

  it('goes when React’s photo fails (the silhouette shows)', () => {
    renderHome();
    fireEvent.error(screen.getByRole('img', { name: 'Photo of the assistant' }));
    expect(shell()).toBeNull();
  });

  it('goes at once for an account without a photo', () => {
    const account = validAccount();
    renderHome({ ...account, info: account.info && { ...account.info, photoUrl: null } });
    expect(shell()).toBeNull();
  });

  it('goes when Start chat is tapped before the photo has arrived, so the connecting state shows', async () => {
    const user = userEvent.setup();
    renderHome();
    await user.click(screen.getByRole('button', { name: 'Start chat' }));
    expect(shell()).toBeNull();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('goes after a bounded wait when the photo never settles', () => {
    vi.useFakeTimers();
    renderHome();
    act(() => vi.advanceTimersByTime(SHELL_PHOTO_WAIT_MS - 1));
    expect(shell()).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(shell()).toBeNull();
  });
});
