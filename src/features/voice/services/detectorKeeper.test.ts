import { describe, expect, it, vi } from 'vitest';
import type { VadClient } from '../workers/vad.client.ts';
import { DetectorKeeper } from './detectorKeeper.ts';

/** A promise and its resolve, for a test to decide when something answers. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A VAD client whose readiness the test decides. */
function fakeVads() {
  const made: { vad: VadClient; load(): void; fail(): void; disposed: () => number }[] = [];
  const create = vi.fn(() => {
    let load!: () => void;
    let fail!: (e: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((load = resolve), (fail = reject)));
    let disposed = 0;
    const vad = { ready, dispose: vi.fn(async () => void disposed++) } as unknown as VadClient;
    made.push({ vad, load, fail: () => fail(new Error('model 404')), disposed: () => disposed });
    return vad;
  });
  return { create, made };
}

/** A detector a call made itself. */
function ownDetector() {
  const dispose = vi.fn(async () => {});
  const vad = { dispose } as unknown as VadClient;
  return { warm: { vad, dispose: () => vad.dispose() }, dispose };
}

describe('DetectorKeeper', () => {
  it('loads one detector, hands it to a call, keeps it back for the next one, and disposes it at release', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    keeper.warm();
    expect(create).toHaveBeenCalledTimes(1);
    made[0]!.load();
    const first = await keeper.take()?.ready;
    expect(first?.vad).toBe(made[0]!.vad);
    // In a call: warming again makes nothing, the detector is coming back.
    keeper.warm();
    expect(create).toHaveBeenCalledTimes(1);
    keeper.give(first!);
    const second = await keeper.take()?.ready;
    expect(second?.vad).toBe(made[0]!.vad);
    keeper.give(second!);
    expect(made[0]!.disposed()).toBe(0);
    await keeper.release();
    expect(made[0]!.disposed()).toBe(1);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('hands out a detector still loading, which the call then waits for', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    let taken: unknown = 'pending';
    void keeper.take()?.ready.then((w) => (taken = w));
    await Promise.resolve();
    expect(taken).toBe('pending');
    made[0]!.load();
    await vi.waitFor(() => expect(taken).toMatchObject({ vad: made[0]!.vad }));
  });

  it('with nothing kept, or a detector that could not load, a call gets null and makes its own', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    expect(keeper.take()).toBeNull();
    keeper.give();
    keeper.warm();
    made[0]!.fail();
    expect(await keeper.take()?.ready).toBeNull();
    expect(made[0]!.disposed()).toBe(1);
  });

  it('disposes a detector that comes back after release, or while another is kept', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    made[0]!.load();
    const lent = await keeper.take()?.ready;
    // A second call that made its own detector comes back first and is kept...
    const own = ownDetector();
    keeper.give(own.warm);
    // ...so the first one, coming back now, goes.
    keeper.give(lent!);
    expect(made[0]!.disposed()).toBe(1);
    await keeper.release();
    expect(own.dispose).toHaveBeenCalledTimes(1);
    const late = ownDetector();
    keeper.give(late.warm);
    expect(late.dispose).toHaveBeenCalledTimes(1);
  });

  it('a detector still coming back from its call is handed to the next call, or disposed once back after release', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    made[0]!.load();
    const lent = await keeper.take()?.ready;
    const back = deferred<typeof lent>();
    keeper.give(back.promise.then((w) => w ?? undefined));
    // The next call waits for it rather than making its own.
    const next = keeper.take();
    expect(next).not.toBeNull();
    back.resolve(lent);
    expect((await next?.ready)?.vad).toBe(made[0]!.vad);
    // Coming back again, but the session ends first: disposed when it is back.
    const again = deferred<typeof lent>();
    keeper.give(again.promise.then((w) => w ?? undefined));
    await keeper.release();
    expect(made[0]!.disposed()).toBe(0);
    again.resolve(lent);
    await vi.waitFor(() => expect(made[0]!.disposed()).toBe(1));
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('a release while the detector of a call comes back still loading stops that load, and one coming back once released goes too', async () => {
    const { create } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    keeper.take();
    const abandon = new AbortController();
    keeper.give(deferred<undefined>().promise, abandon);
    expect(abandon.signal.aborted).toBe(false);
    await keeper.release();
    expect(abandon.signal.aborted).toBe(true);
    // Given back after release: no one will take it, so its load stops at once.
    const late = new AbortController();
    keeper.give(deferred<undefined>().promise, late);
    expect(late.signal.aborted).toBe(true);
  });

  it('a call that will not take the detector handed to it cancels it: a load stops, a returning one is abandoned', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    keeper.take()?.cancel();
    expect(made[0]!.disposed()).toBe(1);
    keeper.give();
    const abandon = new AbortController();
    keeper.give(deferred<undefined>().promise, abandon);
    keeper.take()?.cancel();
    expect(abandon.signal.aborted).toBe(true);
  });

  it('a release during loading disposes the detector at once, without waiting for the load', async () => {
    const { create, made } = fakeVads();
    const keeper = new DetectorKeeper(create);
    keeper.warm();
    await keeper.release();
    expect(made[0]!.disposed()).toBe(1);
    expect(keeper.take()).toBeNull();
  });

  it('a worker that cannot even be created is logged, not thrown: calls make their own', () => {
    const keeper = new DetectorKeeper(() => {
      throw new DOMException('blocked by CSP', 'SecurityError');
    });
    expect(() => keeper.warm()).not.toThrow();
    expect(keeper.take()).toBeNull();
  });
});
