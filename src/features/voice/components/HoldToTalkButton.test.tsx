import { act, fireEvent, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { holdAborted, holdPressed, holdReleased, holdSlid, holdStarted, initialVoiceState, micAccessFailed } from '../voiceSlice.ts';
import { HoldToTalkButton } from './HoldToTalkButton.tsx';

beforeAll(() => {
  // jsdom has no pointer capture.
  HTMLElement.prototype.setPointerCapture = vi.fn();
});

function renderButton() {
  const view = renderWithProviders(<HoldToTalkButton />, { preloadedState: { voice: initialVoiceState } });
  // What the saga does on an accepted press.
  const accept = () => act(() => void view.store.dispatch(holdStarted()));
  const voiceActions = () => view.dispatched.filter((a) => a.type.startsWith('voice/hold'));
  return { ...view, accept, voiceActions, button: screen.getByRole('button', { name: 'Hold to talk' }) };
}

describe('HoldToTalkButton', () => {
  it('press, overlay "Release to send", release', () => {
    const { button, accept, voiceActions } = renderButton();
    fireEvent.pointerDown(button, { pointerId: 1, button: 0, clientY: 500 });
    accept();
    expect(screen.getByText('Release to send')).toBeInTheDocument();
    expect(screen.getByText('Recording…')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Hold to talk' })).toBeInTheDocument();
    fireEvent.pointerUp(button, { pointerId: 1, clientY: 500 });
    expect(voiceActions()).toEqual([holdPressed(), holdStarted(), holdReleased()]);
    expect(screen.queryByText('Release to send')).not.toBeInTheDocument();
  });

  it('sliding up 15 px switches the overlay to "Release to cancel", and back down to send', () => {
    const { button, accept, voiceActions } = renderButton();
    fireEvent.pointerDown(button, { pointerId: 1, button: 0, clientY: 500 });
    accept();
    fireEvent.pointerMove(button, { pointerId: 1, clientY: 490 });
    expect(screen.getByText('Release to send')).toBeInTheDocument();
    fireEvent.pointerMove(button, { pointerId: 1, clientY: 485 });
    fireEvent.pointerMove(button, { pointerId: 1, clientY: 470 });
    expect(screen.getByText('Release to cancel')).toBeInTheDocument();
    fireEvent.pointerMove(button, { pointerId: 1, clientY: 495 });
    expect(voiceActions()).toEqual([holdPressed(), holdStarted(), holdSlid(true), holdSlid(false)]);
  });

  it('a cancelled pointer aborts; a second finger is ignored', () => {
    const { button, accept, voiceActions } = renderButton();
    fireEvent.pointerDown(button, { pointerId: 1, button: 0, clientY: 500 });
    accept();
    fireEvent.pointerDown(button, { pointerId: 2, button: 0, clientY: 500 });
    fireEvent.pointerUp(button, { pointerId: 2 });
    fireEvent.pointerCancel(button, { pointerId: 1 });
    expect(voiceActions()).toEqual([holdPressed(), holdStarted(), holdAborted()]);
  });

  it('keyboard: holding Space records, key repeat is ignored, releasing sends; Escape cancels', () => {
    const { button, voiceActions } = renderButton();
    fireEvent.keyDown(button, { key: ' ' });
    fireEvent.keyDown(button, { key: ' ', repeat: true });
    fireEvent.keyUp(button, { key: ' ' });
    fireEvent.keyDown(button, { key: 'Enter' });
    fireEvent.keyDown(button, { key: 'Escape' });
    fireEvent.keyUp(button, { key: 'Enter' });
    expect(voiceActions()).toEqual([holdPressed(), holdReleased(), holdPressed(), holdAborted()]);
  });

  it('shows why recording is disabled after the microphone was refused', () => {
    const { store } = renderButton();
    act(() => void store.dispatch(micAccessFailed('denied')));
    expect(screen.getByRole('button', { name: 'Hold to talk' })).toHaveAccessibleDescription(
      'Microphone blocked: allow it in the browser settings',
    );
  });
});
