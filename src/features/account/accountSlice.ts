import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** The parts of the user-info response the client reads; the rest is kept as received in localStorage. */
export interface AccountInfo {
  photoUrl: string | null;
  title: string | null;
  label: string | null;
  background: { kind: 'image' | 'video'; url: string } | null;
  asr: { appKey: string; region: string } | null;
}

/** `unreachable`: the user service could not be reached after the client's own retries (not an invalid account). */
export type AccountStatus = 'idle' | 'loading' | 'valid' | 'invalid' | 'missingId' | 'unreachable';

export interface AccountState {
  status: AccountStatus;
  userId: string | null;
  deviceId: string | null;
  info: AccountInfo | null;
}

const initialState: AccountState = { status: 'idle', userId: null, deviceId: null, info: null };

export const accountSlice = createSlice({
  name: 'account',
  initialState,
  reducers: {
    bootStarted(state, action: PayloadAction<{ userId: string | null; deviceId: string }>) {
      state.userId = action.payload.userId;
      state.deviceId = action.payload.deviceId;
      state.status = action.payload.userId ? 'loading' : 'missingId';
    },
    accountLoaded(state, action: PayloadAction<AccountInfo>) {
      state.status = 'valid';
      state.info = action.payload;
    },
    accountRejected(state) {
      state.status = 'invalid';
      state.info = null;
    },
    accountUnreachable(state) {
      state.status = 'unreachable';
    },
    /** The visitor tapped Retry after the user service could not be reached. */
    accountRetryRequested(state) {
      if (state.status === 'unreachable') state.status = 'loading';
    },
  },
  selectors: {
    selectAccountStatus: (state) => state.status,
    selectUserId: (state) => state.userId,
    selectDeviceId: (state) => state.deviceId,
    selectAccountInfo: (state) => state.info,
  },
});

export const { bootStarted, accountLoaded, accountRejected, accountUnreachable, accountRetryRequested } = accountSlice.actions;
export const { selectAccountStatus, selectUserId, selectDeviceId, selectAccountInfo } = accountSlice.selectors;
