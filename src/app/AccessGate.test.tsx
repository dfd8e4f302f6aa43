import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../features/notices/messages.ts';
import { toastShown } from '../features/notices/noticesSlice.ts';
import { renderWithProviders, validAccount } from '../test/render.tsx';
import { allowsTouchMove, AccessGate } from './AccessGate.tsx';
import { App } from './App.tsx';
import { LiveView } from '../live/LiveView.tsx';

function dispatchCancelable(target: EventTarget, type: string): Event {
  const event = new Event(type, { bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
}

describe('AccessGate', () => {
  it('renders nothing but the invalid-user toast for an invalid account', () => {
    const { store, container } = renderWithProviders(<App live={LiveView} />, {
      lang: 'zh',
      preloadedState: { account: validAccount({ status: 'invalid', info: null }) },
    });
    act(() => {
      store.dispatch(toastShown({ id: catalogue.invalidUser.id }));
    });
    expect(screen.getByRole('status')).toHaveTextContent('无效用户!!!');
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
    expect(container.querySelector('.app')).toBeEmptyDOMElement();
  });

  it('shows the network message and Retry when the user service cannot be reached; Retry asks again', () => {
    const { store } = renderWithProviders(<AccessGate>content</AccessGate>, {
      preloadedState: { account: validAccount({ status: 'unreachable', info: null }) },
    });
    expect(screen.queryByText('content')).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('The service cannot be reached right now');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(store.getState().account.status).toBe('loading');
  });

  it('renders nothing when the URL had no id', () => {
    const { container } = renderWithProviders(<AccessGate>content</AccessGate>, {
      preloadedState: { account: validAccount({ status: 'missingId', userId: null, info: null }) },
    });
    expect(container).toBeEmptyDOMElement();
  });

  it('shows a quiet splash, not the content, while the account loads', () => {
    const { container } = renderWithProviders(<AccessGate>content</AccessGate>, {
      preloadedState: { account: validAccount({ status: 'loading', info: null }) },
    });
    expect(screen.queryByText('content')).not.toBeInTheDocument();
    expect(container.querySelector('[aria-busy="true"]')).toBeInTheDocument();
  });

  it('renders the content for a valid account', () => {
    renderWithProviders(<AccessGate>content</AccessGate>, { preloadedState: { account: validAccount() } });
    expect(screen.getByText('content')).toBeInTheDocument();
  });

  it('blocks the context menu', () => {
    renderWithProviders(<AccessGate>content</AccessGate>, { preloadedState: { account: validAccount() } });
    expect(dispatchCancelable(screen.getByText('content'), 'contextmenu').defaultPrevented).toBe(true);
  });

  it('blocks dragging the page, but not on draggable elements', () => {
    renderWithProviders(
      <AccessGate>
        <p>page</p>
        <div draggable="true">
          <span>handle</span>
        </div>
      </AccessGate>,
      { preloadedState: { account: validAccount() } },
    );
    fireEvent.touchStart(screen.getByText('page'));
    expect(dispatchCancelable(screen.getByText('page'), 'touchmove').defaultPrevented).toBe(true);
    fireEvent.touchStart(screen.getByText('handle'));
    expect(dispatchCancelable(screen.getByText('handle'), 'touchmove').defaultPrevented).toBe(false);
  });

  it('lets two fingers pinch to zoom anywhere, where one finger would drag the page', () => {
    renderWithProviders(<AccessGate>page</AccessGate>, { preloadedState: { account: validAccount() } });
    fireEvent.touchStart(screen.getByText('page'));
    const pinch = Object.assign(new Event('touchmove', { bubbles: true, cancelable: true }), { touches: [{}, {}] });
    screen.getByText('page').dispatchEvent(pinch);
    expect(pinch.defaultPrevented).toBe(false);
    const drag = Object.assign(new Event('touchmove', { bubbles: true, cancelable: true }), { touches: [{}] });
    screen.getByText('page').dispatchEvent(drag);
    expect(drag.defaultPrevented).toBe(true);
    const gesture = new Event('gesturestart', { bubbles: true, cancelable: true });
    screen.getByText('page').dispatchEvent(gesture);
    expect(gesture.defaultPrevented).toBe(false);
  });

  it('lets scrollable containers (the chat log) scroll', () => {
    document.body.innerHTML = '<div id="log" style="overflow-y: auto"><p id="line">hello</p></div><p id="still">x</p>';
    const log = document.getElementById('log') as HTMLElement;
    Object.defineProperty(log, 'scrollHeight', { value: 800, configurable: true });
    Object.defineProperty(log, 'clientHeight', { value: 300, configurable: true });
    expect(allowsTouchMove(document.getElementById('line'))).toBe(true);
    expect(allowsTouchMove(document.getElementById('still'))).toBe(false);
    // A container that has nothing to scroll doesn't count.
    Object.defineProperty(log, 'scrollHeight', { value: 300, configurable: true });
    expect(allowsTouchMove(document.getElementById('line'))).toBe(false);
  });
});
