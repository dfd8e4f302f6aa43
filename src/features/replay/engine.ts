/**
 * The replay engine: rebuilds, step by step, the states a session went
 * through by reducing its recorded actions with the app's real root reducer,
 * with no sagas and no network. State k is the state after entry k.
 * Recorded states (page loads, the base of a truncated log) are completed
 * with the initial state of any slice the recording app did not have.
 *
 * The reducer is read when a replay is created, so slices the app injected
 * lazily (chat, voice) are part of it. A checkpoint every N entries makes any
 * seek in a 5,000-entry log cost at most N reducer calls.
 */
import type { Reducer } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store.ts';
import { statsSlice } from '../stats/statsSlice.ts';
import { applyEntry, NORMALIZE_STATE } from '../sessionLog/apply.ts';
import type { LogEntry, SessionLogFile } from '../sessionLog/types.ts';
import { describeEntry, type TimelineItem } from './timeline.ts';

export const DEFAULT_CHECKPOINT_EVERY = 100;

export interface ReplayMarker {
  index: number;
  t: number;
  kind: 'error' | 'state';
  text: string;
}

export interface Replay {
  readonly file: SessionLogFile;
  readonly entries: readonly LogEntry[];
  readonly length: number;
  /** The state before the first entry. */
  readonly initialState: unknown;
  readonly finalState: unknown;
  /** What each entry meant, by index (empty for most entries). */
  readonly items: readonly (readonly TimelineItem[])[];
  /** Errors and state changes, for the timeline. */
  readonly markers: readonly ReplayMarker[];
  /** The state after entry `index`; -1 gives the initial state. */
  stateAt(index: number): unknown;
}

export interface ReplayOptions {
  reducer?: Reducer;
  checkpointEvery?: number;
}

/**
 * The app's root reducer with the stats slice in it, so the panel replays even
 * if this build registers that slice lazily (same reducer: injecting twice is a no-op).
 */
export function appReducer(): Reducer {
  return rootReducer.inject(statsSlice) as Reducer;
}

export function createReplay(file: SessionLogFile, options: ReplayOptions = {}): Replay {
  const reducer = options.reducer ?? appReducer();
  const every = Math.max(1, Math.floor(options.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY));
  const entries = file.entries;
  const failures = new Map<number, string>();

  const apply = (state: unknown, entry: LogEntry, index: number): unknown => {
    try {
      return applyEntry(state, entry, reducer);
    } catch (error) {
      // A damaged or foreign entry must not stop the replay: keep the state and mark the entry.
      failures.set(index, error instanceof Error ? error.message : String(error));
      return state;
    }
  };

  let initialState: unknown;
  try {
    initialState = reducer(file.base ?? undefined, NORMALIZE_STATE);
  } catch {
    initialState = reducer(undefined, NORMALIZE_STATE);
  }
  // checkpoints[j] is the state after the first j × every entries.
  const checkpoints: unknown[] = [initialState];
  const items: TimelineItem[][] = [];
  const markers: ReplayMarker[] = [];
  let state = initialState;
  entries.forEach((entry, index) => {
    const before = state;
    state = apply(before, entry, index);
    const described = describeEntry(entry, before, state);
    const failure = failures.get(index);
    if (failure !== undefined) described.push({ kind: 'error', text: `replay could not apply this entry: ${failure}` });
    items.push(described);
    for (const item of described) {
      if (item.kind === 'error') markers.push({ index, t: entry.t, kind: 'error', text: item.text });
      else if (item.kind === 'state' || item.kind === 'load') markers.push({ index, t: entry.t, kind: 'state', text: item.text });
    }
    if ((index + 1) % every === 0) checkpoints.push(state);
  });
  const finalState = state;

  // The last state computed, so stepping forward one entry at a time costs one reducer call.
  let cache = { position: 0, state: initialState };
  const stateAfter = (position: number): unknown => {
    const p = Math.min(Math.max(0, Math.floor(position)), entries.length);
    if (p === entries.length) return finalState;
    let from = Math.floor(p / every) * every;
    let s = checkpoints[from / every];
    if (cache.position <= p && cache.position > from) {
      from = cache.position;
      s = cache.state;
    }
    for (let i = from; i < p; i++) s = apply(s, entries[i] as LogEntry, i);
    cache = { position: p, state: s };
    return s;
  };

  return {
    file,
    entries,
    length: entries.length,
    initialState,
    finalState,
    items,
    markers,
    stateAt: (index) => stateAfter(index + 1),
  };
}
