import { configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootReducer } from '../app/store.ts';
import { sessionEnded, sessionEnding, startRequested, videoPlaying } from '../features/session/sessionSlice.ts';
import { selectCurrentStats, selectStatsHistory, selectStatsSampling } from '../features/stats/selectors.ts';
import { statsSlice } from '../features/stats/statsSlice.ts';
import first from '../features/stats/fixtures/chrome-first.json';
import steady from '../features/stats/fixtures/chrome-steady.json';
import type { SagaServices } from './context.ts';
import { statsSaga, type StatsSource } from './stats.ts';

// The app registers the stats slice; inject it here too so this test does not depend on that line.
const reducer = rootReducer.inject(statsSlice);

function setup(reports: unknown[]) {
  const getStats = vi.fn(async () => (reports.shift() ?? null) as RTCStatsReport | null);
  const statsSource: StatsSource = { getStats };
  const saga = createSagaMiddleware({ context: { services: { statsSource } as Partial<SagaServices> } });
  const store = configureStore({ reducer, middleware: (getDefault) => getDefault().concat(saga) });
  const task = saga.run(statsSaga);
  return { store, getStats, task };
}

function goLive(store: ReturnType<typeof setup>['store']) {
  store.dispatch(startRequested());
  store.dispatch(videoPlaying());
}

describe('stats sampler saga', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not sample before the session is live', async () => {
    const { store, getStats, task } = setup([]);
    store.dispatch(startRequested());
    await vi.advanceTimersByTimeAsync(30_000);
    expect(getStats).not.toHaveBeenCalled();
    expect(selectStatsSampling(store.getState())).toBe(false);
    task.cancel();
  });

  it('samples at once when live, then every 5 s, deriving rates between reports', async () => {
    const { store, getStats, task } = setup([first, steady]);
    goLive(store);
    await vi.advanceTimersByTimeAsync(0);
    expect(getStats).toHaveBeenCalledTimes(1);
    expect(selectStatsSampling(store.getState())).toBe(true);
    expect(selectCurrentStats(store.getState())).toMatchObject({ downKbps: null, rttMs: 46 });

    await vi.advanceTimersByTimeAsync(4_999);
    expect(getStats).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(getStats).toHaveBeenCalledTimes(2);
    expect(selectCurrentStats(store.getState())).toMatchObject({ downKbps: 1250, lossPct: 0.55, quality: 'excellent' });

    // no peer connection: an empty sample, never a crash
    await vi.advanceTimersByTimeAsync(5_000);
    expect(getStats).toHaveBeenCalledTimes(3);
    expect(selectCurrentStats(store.getState())).toMatchObject({ downKbps: null, quality: null });
    expect(selectStatsHistory(store.getState())).toHaveLength(3);
    task.cancel();
  });

  it('stops when the session ends and starts again with the next live session', async () => {
    const { store, getStats, task } = setup([first, steady, first]);
    goLive(store);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(getStats).toHaveBeenCalledTimes(2);

    store.dispatch(sessionEnding('user'));
    store.dispatch(sessionEnded());
    await vi.advanceTimersByTimeAsync(60_000);
    expect(getStats).toHaveBeenCalledTimes(2);
    expect(selectStatsSampling(store.getState())).toBe(false);
    // the last figures stay readable after the end
    expect(selectCurrentStats(store.getState())).toMatchObject({ downKbps: 1250 });

    goLive(store);
    await vi.advanceTimersByTimeAsync(0);
    expect(getStats).toHaveBeenCalledTimes(3);
    expect(selectStatsHistory(store.getState())).toHaveLength(1);
    task.cancel();
  });

  it('keeps sampling when getStats rejects', async () => {
    const { store, getStats, task } = setup([]);
    getStats.mockRejectedValueOnce(new Error('closed'));
    goLive(store);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(getStats).toHaveBeenCalledTimes(2);
    expect(selectStatsHistory(store.getState())).toHaveLength(2);
    task.cancel();
  });
});
