import type { UnknownAction } from '@reduxjs/toolkit';
import { describe, expect, it } from 'vitest';
import { sessionEnded } from '../session/sessionSlice.ts';
import {
  callEntered,
  callLeft,
  draftChanged,
  draftRestored,
  inputSlice,
  MAX_DRAFT_CHARS,
  modeSwitched,
  textSubmitted,
  type InputState,
} from './inputSlice.ts';

const reduce = (...actions: UnknownAction[]): InputState => actions.reduce(inputSlice.reducer, inputSlice.getInitialState());

describe('input modes', () => {
  it('starts in keyboard mode and toggles between keyboard and speak', () => {
    expect(reduce().mode).toBe('keyboard');
    expect(reduce(modeSwitched('speak')).mode).toBe('speak');
    expect(reduce(modeSwitched('speak'), modeSwitched('keyboard')).mode).toBe('keyboard');
  });

  it('leaving call mode returns to the previous mode', () => {
    const inCall = reduce(modeSwitched('keyboard'), callEntered());
    expect(inCall).toMatchObject({ mode: 'call', previousMode: 'keyboard' });
    expect(inputSlice.reducer(inCall, callLeft())).toMatchObject({ mode: 'keyboard', previousMode: null });
  });

  it('leaving call mode goes to speak when there is no previous mode', () => {
    const state = inputSlice.reducer({ mode: 'call', previousMode: null, draft: '' }, callLeft());
    expect(state.mode).toBe('speak');
  });

  it('a toggle during a call only changes where the call returns to; a second callEntered changes nothing', () => {
    const state = reduce(modeSwitched('speak'), callEntered(), modeSwitched('keyboard'), callEntered());
    expect(state).toMatchObject({ mode: 'call', previousMode: 'keyboard' });
  });

  it('a session end never leaves the next session in call mode', () => {
    expect(reduce(modeSwitched('speak'), callEntered(), sessionEnded()).mode).toBe('speak');
  });
});

describe('the draft', () => {
  it('is cleared by a send of real text and kept for blank text', () => {
    expect(reduce(draftChanged('hello'), textSubmitted('hello')).draft).toBe('');
    expect(reduce(draftChanged('   '), textSubmitted('   ')).draft).toBe('   ');
  });

  it('gets the text of a failed send back, before anything typed since, without doubling it', () => {
    expect(reduce(draftRestored('where is the store')).draft).toBe('where is the store');
    expect(reduce(draftChanged('and hours'), draftRestored('where is the store')).draft).toBe('where is the store and hours');
    expect(reduce(draftChanged('where is the store'), draftRestored('where is the store')).draft).toBe('where is the store');
  });

  it('is capped', () => {
    expect(reduce(draftChanged('x'.repeat(MAX_DRAFT_CHARS + 10))).draft).toHaveLength(MAX_DRAFT_CHARS);
  });

  it('survives switching to voice and back, and the end of a session', () => {
    expect(reduce(draftChanged('half typed'), modeSwitched('speak'), modeSwitched('keyboard'), sessionEnded()).draft).toBe('half typed');
  });
});
