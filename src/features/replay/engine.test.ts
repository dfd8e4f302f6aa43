import { describe, expect, it } from 'vitest';
import { makeStore } from '../../app/store.ts';
import { langInitialized } from '../locale/localeSlice.ts';
import * as session from '../session/sessionSlice.ts';
import { buildSessionLogFile, serializeSessionLogFile } from '../sessionLog/exportLog.ts';
import { createRecorder } from '../sessionLog/recorder.ts';
import { REDACTED } from '../sessionLog/redact.ts';
import { appReducer, createReplay } from './engine.ts';
import { parseLogFile } from './parse.ts';
import { liveStore, playSession, SPEECH_KEY } from './recordedSession.ts';
import { selectCandidateType } from '../stats/selectors.ts';
import oldLog from './fixtures/session-log.json';

// The stats slice is part of what replay rebuilds; make sure the live store has it too.
appReducer();

/** The live state as a log may carry it: everything equal except the speech key, which it must not carry. */
function withoutSecrets(live: ReturnType<ReturnType<typeof liveStore>['store']['getState']>) {
  const info = live.account.info;
  return info?.asr ? { ...live, account: { ...live.account, info: { ...info, asr: { ...info.asr, appKey: REDACTED } } } } : live;
}

describe('replay', () => {
  it('is exact: replaying an exported log rebuilds the live final state (secrets aside)', () => {
    const recorder = createRecorder({ reducer: appReducer(), appVersion: '1.0.0', environment: 'test' });
    const { store, dispatch } = liveStore(recorder);
    playSession(dispatch, recorder);
    const text = serializeSessionLogFile(buildSessionLogFile(recorder, { accountId: 'demo', deviceId: 'H5x' }), recorder);
    expect(text).not.toContain(SPEECH_KEY);

    const replay = createReplay(parseLogFile(text).file);
    const live = store.getState();
    const expected = withoutSecrets(live);
    expect(expected).not.toEqual(live);
    expect(replay.finalState).toEqual(expected);
    expect(replay.stateAt(replay.length - 1)).toEqual(expected);
    expect((replay.finalState as typeof live).session).toEqual(live.session);
  });

  it('seeks to the same state as stepping, in any order, across checkpoints', () => {
    const recorder = createRecorder({ reducer: appReducer() });
    const { dispatch } = liveStore(recorder);
    for (let i = 0; i < 10; i++) playSession(dispatch, recorder);
    const file = buildSessionLogFile(recorder, { accountId: null, deviceId: null });
    const stepwise = createReplay(file, { checkpointEvery: 1 });
    const sparse = createReplay(file, { checkpointEvery: 64 });
    expect(file.entries.length).toBeGreaterThan(300);
    for (const index of [file.entries.length - 1, 5, 200, 63, 64, 65, 199, 0, -1, 300, 129, 128, 127]) {
      expect(sparse.stateAt(index)).toEqual(stepwise.stateAt(index));
    }
  });

  it('replays a log truncated by the ring bound from its base state', () => {
    const recorder = createRecorder({ reducer: appReducer(), capacity: 25 });
    const { store, dispatch } = liveStore(recorder);
    playSession(dispatch, recorder);
    const file = JSON.parse(JSON.stringify(buildSessionLogFile(recorder, { accountId: null, deviceId: null })));
    expect(file.dropped).toBeGreaterThan(0);
    const live = store.getState();
    expect(createReplay(parseLogFile(file).file).finalState).toEqual(withoutSecrets(live));
  });

  it('starts over at a reload, as the page did', () => {
    const recorder = createRecorder({ reducer: appReducer() });
    const before = liveStore(recorder);
    before.dispatch(session.startRequested());
    const after = liveStore(recorder); // a new store, as after a reload
    after.dispatch(langInitialized('kor'));
    const replay = createReplay(buildSessionLogFile(recorder, { accountId: null, deviceId: null }));
    expect(replay.finalState).toEqual(after.store.getState());
    expect(replay.markers.filter((m) => m.text === 'page loaded')).toHaveLength(2);
  });

  it('gives slices the recording app did not have their initial state', () => {
    const recorder = createRecorder({ reducer: appReducer() });
    const { store, dispatch } = liveStore(recorder);
    dispatch(session.startRequested());
    const file = buildSessionLogFile(recorder, { accountId: null, deviceId: null });
    const { stats: _stats, chat: _chat, ...older } = file.entries[0]?.kind === 'store' ? (file.entries[0].state as Record<string, unknown>) : {};
    file.entries[0] = { seq: 0, t: 0, kind: 'store', reload: false, state: older };
    const replay = createReplay(file);
    expect(replay.stateAt(0)).toEqual(makeStore().getState());
    expect(replay.finalState).toEqual(store.getState());
  });

  it('marks errors and state changes, and survives actions the reducers reject', () => {
    const recorder = createRecorder({ reducer: appReducer() });
    const { dispatch } = liveStore(recorder);
    playSession(dispatch, recorder);
    const file = buildSessionLogFile(recorder, { accountId: null, deviceId: null });
    // A tampered entry: the reducer throws on it (it reads payload.roomId).
    file.entries.splice(5, 0, { seq: 999, t: 1, kind: 'action', action: { type: 'session/liveStarted', payload: null } });
    const replay = createReplay({ ...file, entries: file.entries.map((e, i) => ({ ...e, seq: i })) });
    const texts = replay.markers.map((m) => `${m.kind} ${m.text}`);
    expect(texts).toContain('state session idle → connecting');
    expect(texts).toContain('state signaling closed → connecting');
    expect(texts).toContain('state media connected → disconnected');
    expect(texts).toContain('state media reconnect #1');
    expect(texts).toContain('error alert "no avatar available"');
    expect(texts).toContain('error alert error.iceError');
    expect(texts).toContain('error toast error.noVoice');
    expect(texts).toContain('error error media: ICE failed');
    expect(texts.some((t) => t.startsWith('error replay could not apply this entry'))).toBe(true);
    expect(replay.finalState).toMatchObject({ session: { status: 'idle', endReason: 'iceError' } });
  });

  it('carries the route in new logs and replays logs recorded before it existed', () => {
    const recorder = createRecorder({ reducer: appReducer() });
    const { dispatch } = liveStore(recorder);
    playSession(dispatch, recorder);
    const text = serializeSessionLogFile(buildSessionLogFile(recorder, { accountId: null, deviceId: null }), recorder);
    const replay = createReplay(parseLogFile(text).file);
    const sampled = replay.file.entries.filter((e) => e.kind === 'action' && e.action.type === 'stats/statsSampled');
    expect(sampled.length).toBeGreaterThan(0);
    for (const entry of sampled) expect(entry).toMatchObject({ action: { payload: { candidateType: 'host' } } });
    expect(selectCandidateType(replay.finalState as object)).toBe('host');

    // The fixture was recorded before: its samples have no candidateType, and the route reads as none.
    const old = createReplay(parseLogFile(JSON.stringify(oldLog)).file);
    const oldSampled = old.file.entries.findIndex((e) => e.kind === 'action' && e.action.type === 'stats/statsSampled');
    expect(JSON.stringify(oldLog)).not.toContain('candidateType');
    expect(old.stateAt(oldSampled)).toMatchObject({ stats: { current: { jitterMs: 12, rttMs: 46 } } });
    expect(selectCandidateType(old.stateAt(oldSampled) as object)).toBeNull();
    expect(selectCandidateType(old.finalState as object)).toBeNull();
  });

  it('never passes on a route that is not one of the known words (a hand-edited log)', () => {
    const sample = { upKbps: 5, downKbps: 1250, lossPct: 0, jitterMs: 12, rttMs: 46, quality: 'excellent' };
    const entries = [
      { seq: 0, t: 0, kind: 'action', action: { type: 'stats/statsSampled', payload: { ...sample, candidateType: 'relay' } } },
      { seq: 1, t: 5000, kind: 'action', action: { type: 'stats/statsSampled', payload: { ...sample, candidateType: '<b>x</b>' } } },
      { seq: 2, t: 10000, kind: 'action', action: { type: 'stats/statsSampled', payload: { ...sample, candidateType: { evil: true } } } },
      { seq: 3, t: 15000, kind: 'store', reload: true, state: { stats: { panelEnabled: true, sampling: true, current: { ...sample, candidateType: 'srflx' }, history: [] } } },
      { seq: 4, t: 15001, kind: 'store', reload: true, state: { stats: { panelEnabled: true, sampling: true, current: { ...sample, candidateType: 'TURN' }, history: [] } } },
    ];
    const replay = createReplay(parseLogFile({ ...oldLog, entries }).file);
    expect([0, 1, 2, 3, 4].map((i) => selectCandidateType(replay.stateAt(i) as object))).toEqual(['relay', null, null, 'srflx', null]);
  });
});
