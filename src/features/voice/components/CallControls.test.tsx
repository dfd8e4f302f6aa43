import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { callLeft } from '../../input/inputSlice.ts';
import { messageReceived } from '../../signaling/signalingActions.ts';
import { initialVoiceState, muteToggled, partialRecognized } from '../voiceSlice.ts';
import { CallControls } from './CallControls.tsx';

function renderControls() {
  return renderWithProviders(<CallControls />, { preloadedState: { voice: { ...initialVoiceState, call: 'active' } } });
}

describe('CallControls', () => {
  it('mute toggles its name; hang up leaves the call', () => {
    const { dispatched } = renderControls();
    expect(screen.getByText('Listening…')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Mute microphone' }));
    expect(screen.getByText('Muted')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Unmute microphone' }));
    fireEvent.click(screen.getByRole('button', { name: 'Hang up' }));
    expect(dispatched).toEqual([muteToggled(), muteToggled(), callLeft()]);
  });

  it('shows the words heard and what the avatar is doing', () => {
    const { store } = renderControls();
    act(() => {
      store.dispatch(partialRecognized({ msgId: 'v-1', text: 'where is the', mode: 'call' }));
    });
    expect(screen.getByText('where is the')).toBeInTheDocument();
    act(() => {
      store.dispatch(messageReceived({ msg_type: 'command', command: 'nlp_running', msg_id: 'r-1' }));
    });
    expect(screen.getByText('Speaking…')).toBeInTheDocument();
  });
});
