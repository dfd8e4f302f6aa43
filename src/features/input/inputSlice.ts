/**
 * The bottom bar's input mode (docs/requirements.md R52 and R55) and the text box's draft.
 * The draft lives here, not in the component, so switching to voice and back,
 * or a send that failed because the channel was closed, never loses a word.
 */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { sessionEnded } from '../session/sessionSlice.ts';

export type InputMode = 'keyboard' | 'speak' | 'call';

export interface InputState {
  mode: InputMode;
  /** The mode before call mode; leaving call mode returns to it (speak by default). */
  previousMode: Exclude<InputMode, 'call'> | null;
  draft: string;
}

/** A typed message longer than this is cut at the text box (the server truncates at 100,000 anyway). */
export const MAX_DRAFT_CHARS = 2000;

export const initialInputState: InputState = { mode: 'keyboard', previousMode: null, draft: '' };

export const inputSlice = createSlice({
  name: 'input',
  initialState: initialInputState,
  reducers: {
    /** The keyboard/voice toggle. Call mode is entered and left only through callEntered/callLeft. */
    modeSwitched(state, action: PayloadAction<Exclude<InputMode, 'call'>>) {
      if (state.mode === 'call') state.previousMode = action.payload;
      else state.mode = action.payload;
    },
    /** Start call tapped; the voice feature checks the microphone and answers with callEntered (or an alert). */
    callRequested() {},
    callEntered(state) {
      if (state.mode === 'call') return;
      state.previousMode = state.mode;
      state.mode = 'call';
    },
    callLeft(state) {
      if (state.mode !== 'call') return;
      state.mode = state.previousMode ?? 'speak';
      state.previousMode = null;
    },
    draftChanged(state, action: PayloadAction<string>) {
      state.draft = action.payload.slice(0, MAX_DRAFT_CHARS);
    },
    /** Enter or the send icon. The chat saga trims it and sends it; blank text is not sent and stays as typed. */
    textSubmitted(state, action: PayloadAction<string>) {
      if (action.payload.trim() !== '') state.draft = '';
    },
    /** A send failed: the text goes back into the box, before anything typed since. */
    draftRestored(state, action: PayloadAction<string>) {
      const restored = action.payload.slice(0, MAX_DRAFT_CHARS);
      if (state.draft.includes(restored)) return;
      state.draft = state.draft === '' ? restored : `${restored} ${state.draft}`.slice(0, MAX_DRAFT_CHARS);
    },
  },
  extraReducers: (builder) => {
    // A new session starts in the visitor's last chosen mode, never in a call; the draft stays.
    builder.addCase(sessionEnded, (state) => {
      if (state.mode === 'call') state.mode = state.previousMode ?? 'speak';
      state.previousMode = null;
    });
  },
  selectors: {
    selectInputMode: (state) => state.mode,
    selectPreviousMode: (state) => state.previousMode,
    selectDraft: (state) => state.draft,
  },
});

export const { modeSwitched, callRequested, callEntered, callLeft, draftChanged, textSubmitted, draftRestored } =
  inputSlice.actions;

type WithInput = { input?: InputState };
const bound = inputSlice.getSelectors((root: WithInput) => root.input ?? initialInputState);
export const { selectInputMode, selectPreviousMode, selectDraft } = bound;
