import { combineSlices, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyEntry } from './apply.ts';
import { STORAGE_KEY } from './persistence.ts';
import { createRecorder, DEFAULT_CAPACITY, MAX_PERSIST_INTERVAL_MS, PERSIST_BUDGET, PERSIST_INTERVAL_MS } from './recorder.ts';
import { Ring } from './ring.ts';
import type { LogEntry } from './types.ts';

const counter = createSlice({
  name: 'counter',
  initialState: { n: 0 },
  reducers: { added: (s, a: PayloadAction<number>) => void (s.n += a.payload) },
});
const reducer = combineSlices(counter);

function replayAll(base: unknown, entries: LogEntry[]): unknown {
  return entries.reduce<unknown>((state, e) => applyEntry(state, e, reducer), base ?? reducer(undefined, { type: '@@init' }));
}

function fakeClock(start = 1000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('Ring', () => {
  it('keeps the newest items and returns what it evicts', () => {
    const ring = new Ring<number>(3);
    expect([ring.push(1), ring.push(2), ring.push(3)]).toEqual([undefined, undefined, undefined]);
    expect(ring.push(4)).toBe(1);
    expect(ring.toArray()).toEqual([2, 3, 4]);
    expect(ring.last()).toBe(4);
    expect(() => new Ring(0)).toThrow(RangeError);
  });
});

describe('session log recorder', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => vi.useRealTimers());

  it('is bounded at 5,000 entries: the 5,001st drops the first', () => {
    const rec = createRecorder({ reducer });
    expect(rec.capacity).toBe(DEFAULT_CAPACITY);
    for (let i = 0; i < 5000; i++) rec.recordExternal('log', { i });
    expect(rec.snapshot().entries).toHaveLength(5000);
    expect(rec.snapshot().entries[0]).toMatchObject({ seq: 0, data: { i: 0 } });
    rec.recordExternal('log', { i: 5000 });
    const snap = rec.snapshot();
    expect(snap.entries).toHaveLength(5000);
    expect(snap.dropped).toBe(1);
    expect(snap.entries[0]).toMatchObject({ seq: 1, data: { i: 1 } });
    expect(snap.entries.at(-1)).toMatchObject({ seq: 5000, data: { i: 5000 } });
  });

  it('rolls a base state forward through evicted entries so a truncated log replays exactly', () => {
    const rec = createRecorder({ reducer, capacity: 10 });
    let live = reducer(undefined, { type: '@@init' });
    rec.recordStore(live);
    for (let i = 1; i <= 25; i++) {
      const action = counter.actions.added(i);
      rec.recordAction(action);
      live = reducer(live, action);
      rec.recordExternal('request', { i });
    }
    const snap = rec.snapshot();
    expect(snap.dropped).toBe(41);
    expect(snap.base).not.toBeNull();
    expect(replayAll(snap.base, snap.entries)).toEqual(live);
  });

  it('stamps entries with monotonic times from its time origin', () => {
    const clock = fakeClock(5000);
    const rec = createRecorder({ now: clock.now, wallClock: () => 1_700_000_000_000 });
    rec.recordExternal('log', 1);
    clock.advance(12.34);
    rec.recordExternal('log', 2);
    clock.advance(-50); // a clock that jumps back never makes time run backwards in the log
    rec.recordExternal('log', 3);
    expect(rec.snapshot().entries.map((e) => e.t)).toEqual([0, 12.3, 12.3]);
    expect(rec.snapshot().startedAt).toBe(1_700_000_000_000);
  });

  it('persists to sessionStorage off the hot path and on pagehide, and continues after a reload', () => {
    vi.useFakeTimers();
    let wall = 1_700_000_000_000;
    const clock = fakeClock(100);
    const first = createRecorder({ storage: sessionStorage, lifecycle: window, reducer, now: clock.now, wallClock: () => wall });
    first.recordStore({ counter: { n: 0 } });
    first.recordAction(counter.actions.added(2));
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull(); // nothing written synchronously
    vi.advanceTimersByTime(PERSIST_INTERVAL_MS);
    expect(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}').entries).toHaveLength(2);

    clock.advance(400);
    first.recordExternal('error', { message: 'ice failed' });
    window.dispatchEvent(new Event('pagehide'));
    expect(JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '{}').entries).toHaveLength(3);
    first.dispose();

    // The reload: a new document, its monotonic clock from zero, 2 s of wall time later.
    wall += 2400;
    const second = createRecorder({ storage: sessionStorage, reducer, now: () => 5, wallClock: () => wall });
    expect(second.restored).toBe(true);
    second.recordStore({ counter: { n: 0 } });
    const snap = second.snapshot();
    expect(snap.startedAt).toBe(1_700_000_000_000);
    expect(snap.entries.map((e) => [e.seq, e.kind])).toEqual([
      [0, 'store'],
      [1, 'action'],
      [2, 'error'],
      [3, 'store'],
    ]);
    expect(snap.entries[3]).toMatchObject({ reload: true, t: 2400 });
    expect(snap.entries[0]).toMatchObject({ reload: false });
    second.dispose();
  });

  it('spaces writes by their cost, so a large log never spends more than its budget on storage', () => {
    vi.useFakeTimers();
    const clock = fakeClock();
    let writes = 0;
    let writeMs = 50;
    // A write of a full ring: sessionStorage.setItem takes 50 ms of main thread.
    const storage = {
      getItem: () => null,
      removeItem: () => {},
      setItem: () => {
        writes += 1;
        clock.advance(writeMs);
      },
    };
    const rec = createRecorder({ storage, now: clock.now });
    rec.recordExternal('log', 1);
    vi.advanceTimersByTime(PERSIST_INTERVAL_MS);
    expect(writes).toBe(1);

    rec.recordExternal('log', 2);
    const spaced = writeMs / PERSIST_BUDGET;
    expect(spaced).toBeGreaterThan(PERSIST_INTERVAL_MS);
    vi.advanceTimersByTime(spaced - 1);
    expect(writes).toBe(1);
    vi.advanceTimersByTime(1);
    expect(writes).toBe(2);

    // Never longer than the cap, however slow; back to the short interval once writes are cheap.
    writeMs = 10_000;
    rec.recordExternal('log', 3);
    vi.advanceTimersByTime(spaced);
    expect(writes).toBe(3);
    writeMs = 0;
    rec.recordExternal('log', 4);
    vi.advanceTimersByTime(MAX_PERSIST_INTERVAL_MS);
    expect(writes).toBe(4);
    rec.recordExternal('log', 5);
    vi.advanceTimersByTime(PERSIST_INTERVAL_MS);
    expect(writes).toBe(5);
    rec.dispose();
  });

  it('discards a damaged stored log instead of crashing', () => {
    for (const junk of ['{not json', '{"v":99,"entries":[]}', JSON.stringify({ v: 1, startedAt: 1, dropped: 0, nextSeq: 1, entries: [{ seq: 'x' }] })]) {
      sessionStorage.setItem(STORAGE_KEY, junk);
      const rec = createRecorder({ storage: sessionStorage });
      expect(rec.restored).toBe(false);
      expect(rec.snapshot().entries).toEqual([]);
      expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    }
  });

  it('writes fewer entries when storage is full, keeping the newest', () => {
    const writes: string[] = [];
    const storage = {
      getItem: () => null,
      removeItem: () => {},
      setItem: (_key: string, value: string) => {
        if (value.length > 4000) throw new DOMException('full', 'QuotaExceededError');
        writes.push(value);
      },
    };
    const rec = createRecorder({ storage, reducer });
    rec.recordStore(reducer(undefined, { type: '@@init' }));
    for (let i = 0; i < 200; i++) rec.recordAction(counter.actions.added(1));
    rec.flush();
    expect(writes).toHaveLength(1);
    const stored = JSON.parse(writes[0] ?? '{}') as { dropped: number; base: unknown; entries: LogEntry[] };
    expect(stored.entries.at(-1)?.seq).toBe(200);
    expect(stored.dropped).toBeGreaterThan(0);
    expect(replayAll(stored.base, stored.entries)).toEqual({ counter: { n: 200 } });
  });

  it('never writes a learnt secret to storage, even where it was recorded before it was learnt', () => {
    const rec = createRecorder({ storage: sessionStorage });
    rec.recordExternal('log', { message: 'early mention of KEY-0123456789' });
    rec.recordExternal('request', { method: 'POST', url: '/ue/userinfo', body: { data: { AsrList: { app_key: 'KEY-0123456789' } } } });
    rec.flush();
    expect(sessionStorage.getItem(STORAGE_KEY)).not.toContain('KEY-0123456789');
  });
});
