import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { StatsSample } from './derive.ts';

export type { StatsSample } from './derive.ts';

/** 5 minutes of samples taken every 5 s (docs/requirements.md R105). */
export const STATS_INTERVAL_MS = 5000;
export const HISTORY_LENGTH = 60;

export interface StatsState {
  /** The panel is on (`?showBitrate=1` or the environment's showBitrate). */
  panelEnabled: boolean;
  /** The sampler is running (the session is live). */
  sampling: boolean;
  /** The latest derived values; kept after the session ends so support staff can still read them. */
  current: StatsSample | null;
  /** Oldest first, at most HISTORY_LENGTH: what the sparklines draw. */
  history: StatsSample[];
}

export const initialStatsState: StatsState = { panelEnabled: false, sampling: false, current: null, history: [] };

/**
 * Derived samples only: the raw getStats reports and the counters between them
 * stay in the sampler saga. Everything here is plain data, so the session log
 * records it and the replay viewer shows the panel as the visitor had it.
 */
export const statsSlice = createSlice({
  name: 'stats',
  initialState: initialStatsState,
  reducers: {
    statsPanelEnabled(state) {
      state.panelEnabled = true;
    },
    /** A new live session: its figures start from nothing. */
    statsSamplingStarted(state) {
      state.sampling = true;
      state.current = null;
      state.history = [];
    },
    statsSampled(state, action: PayloadAction<StatsSample>) {
      state.current = action.payload;
      state.history.push(action.payload);
      if (state.history.length > HISTORY_LENGTH) state.history.splice(0, state.history.length - HISTORY_LENGTH);
    },
    statsSamplingStopped(state) {
      state.sampling = false;
    },
  },
  selectors: {
    selectStatsPanelEnabled: (state) => state.panelEnabled,
    selectStatsSampling: (state) => state.sampling,
    selectCurrentStats: (state) => state.current,
    selectStatsHistory: (state) => state.history,
  },
});

export const { statsPanelEnabled, statsSamplingStarted, statsSampled, statsSamplingStopped } = statsSlice.actions;
