import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { randomUUID } from '../../services/compat.ts';

/** A notice's text: a catalogue message id (localized at render time) or raw text from a server. */
export type NoticeMessage = { id: string; values?: Record<string, string | number> } | { text: string };

/** What tapping an alert's button does besides closing it. */
export type NoticeAction = 'tapToPlay' | 'reload';

export interface Notice {
  key: string;
  kind: 'toast' | 'alert';
  message: NoticeMessage;
  action?: NoticeAction;
}

export interface NoticesState {
  toasts: Notice[];
  alert: Notice | null;
}

const initialState: NoticesState = { toasts: [], alert: null };

/** Toasts stay 2000 ms (docs/requirements.md R114); at most three are stacked. */
export const TOAST_MS = 2000;
const MAX_TOASTS = 3;

export const noticesSlice = createSlice({
  name: 'notices',
  initialState,
  reducers: {
    toastShown: {
      reducer(state, action: PayloadAction<Notice>) {
        state.toasts.push(action.payload);
        if (state.toasts.length > MAX_TOASTS) state.toasts.splice(0, state.toasts.length - MAX_TOASTS);
      },
      prepare(message: NoticeMessage) {
        return { payload: { key: randomUUID(), kind: 'toast' as const, message } };
      },
    },
    toastExpired(state, action: PayloadAction<string>) {
      state.toasts = state.toasts.filter((t) => t.key !== action.payload);
    },
    alertShown: {
      reducer(state, action: PayloadAction<Notice>) {
        state.alert = action.payload;
      },
      prepare(message: NoticeMessage, noticeAction?: NoticeAction) {
        const payload: Notice = { key: randomUUID(), kind: 'alert', message };
        if (noticeAction) payload.action = noticeAction;
        return { payload };
      },
    },
    /** Closed with OK (or Escape): the visitor declined the alert's action, if it had one. */
    alertDismissed(state) {
      state.alert = null;
    },
    /** Closed with the alert's action button (Tap to play, Refresh). */
    alertActionTaken(state) {
      state.alert = null;
    },
  },
  selectors: {
    selectToasts: (state) => state.toasts,
    selectAlert: (state) => state.alert,
  },
});

export const { toastShown, toastExpired, alertShown, alertDismissed, alertActionTaken } = noticesSlice.actions;
export const { selectToasts, selectAlert } = noticesSlice.selectors;
