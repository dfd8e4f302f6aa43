import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { catalogue } from '../messages.ts';
import { toastExpired, toastShown } from '../noticesSlice.ts';
import { Toasts } from './Toasts.tsx';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Toasts', () => {
  it('shows a catalogue toast as role=status in the visitor language and removes it after 2000 ms', () => {
    const { store, actionTypes } = renderWithProviders(<Toasts />, { lang: 'zh' });
    act(() => {
      store.dispatch(toastShown({ id: catalogue.invalidUser.id }));
    });
    expect(screen.getByRole('status')).toHaveTextContent('无效用户!!!');

    act(() => vi.advanceTimersByTime(1999));
    expect(screen.getByRole('status')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    expect(actionTypes().at(-1)).toBe(toastExpired.type);
  });

  it('shows raw server text as is, and each toast keeps its own 2000 ms', () => {
    const { store } = renderWithProviders(<Toasts />);
    act(() => {
      store.dispatch(toastShown({ text: 'route refused' }));
    });
    act(() => vi.advanceTimersByTime(1000));
    act(() => {
      store.dispatch(toastShown({ id: catalogue.pleaseWait.id }));
    });
    expect(screen.getAllByRole('status').map((el) => el.textContent)).toEqual(['route refused', 'Please wait, connecting!!!']);
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getAllByRole('status').map((el) => el.textContent)).toEqual(['Please wait, connecting!!!']);
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
