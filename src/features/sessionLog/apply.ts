import type { Reducer, UnknownAction } from '@reduxjs/toolkit';
import type { LogEntry } from './types.ts';

/**
 * An action no reducer handles. Reducing a recorded state with it fills in
 * slices the recording app did not have yet (combineSlices gives each missing
 * slice its initial state) and leaves everything else as it was.
 */
export const NORMALIZE_STATE: UnknownAction = { type: '@@sessionLog/normalizeState' };

/**
 * The state after one log entry: a `store` entry replaces the state (a page
 * load), an action goes through the reducer, anything else leaves it alone.
 * Shared by the recorder (to roll the base state forward as entries are
 * evicted) and by replay, so both agree on what a log means.
 */
export function applyEntry(state: unknown, entry: LogEntry, reducer: Reducer): unknown {
  if (entry.kind === 'store') return reducer(entry.state ?? undefined, NORMALIZE_STATE);
  if (entry.kind === 'action') return reducer(state, entry.action as UnknownAction);
  return state;
}
