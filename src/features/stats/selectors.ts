import { createSelector } from '@reduxjs/toolkit';
import { candidateTypeOf, type CandidateType } from './derive.ts';
import { qualityRank } from './quality.ts';
import { initialStatsState, statsSlice, type StatsState } from './statsSlice.ts';

/**
 * The stats slice is registered in the root reducer by the app; until a store
 * has it (a component test, an old session log) it reads as the initial state.
 * Typing the root as any object keeps these usable with RootState whether or
 * not it declares the slice.
 */
const bound = statsSlice.getSelectors((root: object) => (root as { stats?: StatsState }).stats ?? initialStatsState);

export const { selectStatsPanelEnabled, selectStatsSampling, selectCurrentStats, selectStatsHistory } = bound;

/**
 * The latest sample's route (local candidate type), or null. The sample may
 * come from a session log: one recorded before the field existed (missing →
 * null) or edited by hand (anything but the four known words → null).
 */
export const selectCandidateType = (root: object): CandidateType | null => candidateTypeOf(selectCurrentStats(root)?.candidateType);

export interface StatsSeries {
  upKbps: (number | null)[];
  downKbps: (number | null)[];
  lossPct: (number | null)[];
  jitterMs: (number | null)[];
  rttMs: (number | null)[];
  quality: (number | null)[];
}

/** One array per sparkline; recomputed only when a sample arrives (every 5 s). */
export const selectStatsSeries = createSelector([selectStatsHistory], (history): StatsSeries => ({
  upKbps: history.map((s) => s.upKbps),
  downKbps: history.map((s) => s.downKbps),
  lossPct: history.map((s) => s.lossPct),
  jitterMs: history.map((s) => s.jitterMs),
  rttMs: history.map((s) => s.rttMs),
  quality: history.map((s) => qualityRank(s.quality)),
}));

/** `?showBitrate=1` (search string or after a `?` in the hash) or the environment's flag turns the panel on. */
export function isStatsPanelRequested(showBitrateParam: string | null, environmentShowBitrate: boolean): boolean {
  if (environmentShowBitrate) return true;
  return showBitrateParam === '1' || showBitrateParam === 'true';
}
