import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { callRequested, draftRestored, inputSlice, modeSwitched, textSubmitted, type InputState } from '../inputSlice.ts';
import { callStarting, voiceSlice } from '../../voice/voiceSlice.ts';
import { InputBar } from './InputBar.tsx';

function renderBar(input: Partial<InputState> = {}) {
  return renderWithProviders(<InputBar speakSlot={<span>speak slot</span>} callSlot={<span>call slot</span>} />, {
    preloadedState: { input: { ...inputSlice.getInitialState(), ...input }, voice: voiceSlice.getInitialState() },
  });
}

describe('InputBar in keyboard mode', () => {
  it('has the text box, Send, Switch to voice and Start call', () => {
    renderBar();
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Switch to voice' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start call' })).toBeInTheDocument();
  });

  it('sends on Enter and on the send icon; the draft lives in the store', async () => {
    const user = userEvent.setup();
    const { dispatched, store } = renderBar();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hi{Enter}');
    expect(dispatched.filter((a) => textSubmitted.match(a))).toEqual([textSubmitted('hi')]);
    expect(store.getState().input.draft).toBe('');

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'again');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(dispatched.filter((a) => textSubmitted.match(a)).at(-1)).toEqual(textSubmitted('again'));
  });

  it('does not send blank text, and Enter that confirms an IME composition does not send', async () => {
    const user = userEvent.setup();
    const { dispatched } = renderBar({ draft: '   ' });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await user.type(box, '{Enter}');
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    await user.clear(box);
    await user.type(box, 'nihao');
    fireEvent.keyDown(box, { key: 'Enter', isComposing: true, keyCode: 229 });
    expect(dispatched.filter((a) => textSubmitted.match(a))).toEqual([]);
  });

  it('shows a draft put back after a failed send', () => {
    const { store } = renderBar();
    act(() => {
      store.dispatch(draftRestored('kept text'));
    });
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('kept text');
  });
});

describe('InputBar while a call starts', () => {
  it('Start call shows it is busy and ignores more taps until the call is on', async () => {
    const user = userEvent.setup();
    const { dispatched, store } = renderBar({ mode: 'speak' });
    const start = screen.getByRole('button', { name: 'Start call' });
    expect(start).not.toHaveAttribute('aria-busy');
    act(() => {
      store.dispatch(callStarting());
    });
    expect(start).toHaveAttribute('aria-busy', 'true');
    await user.click(start);
    expect(dispatched.filter((a) => callRequested.match(a))).toEqual([]);
  });
});

describe('InputBar modes', () => {
  it('switches to speak mode: the voice slot and Switch to keyboard, still Start call', async () => {
    const user = userEvent.setup();
    const { dispatched } = renderBar();
    await user.click(screen.getByRole('button', { name: 'Switch to voice' }));
    expect(dispatched).toEqual([modeSwitched('speak')]);
    expect(screen.getByText('speak slot')).toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Switch to keyboard' }));
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument();
  });

  it('Start call asks the voice feature for call mode', async () => {
    const user = userEvent.setup();
    const { dispatched } = renderBar({ mode: 'speak' });
    await user.click(screen.getByRole('button', { name: 'Start call' }));
    expect(dispatched).toEqual([callRequested()]);
    expect(callRequested.type).toBe('input/callRequested');
  });

  it('in call mode the call controls take the whole bar', () => {
    renderBar({ mode: 'call', previousMode: 'keyboard' });
    expect(screen.getByText('call slot')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Start call' })).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
  });
});
