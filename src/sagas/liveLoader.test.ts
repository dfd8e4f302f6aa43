/**
 * The live chunk's loader (liveLoader.ts): when it is fetched, a Start chat that comes
 * before it, and a chunk that does not arrive.
 */
import { fork } from 'typed-redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catalogue } from '../features/notices/messages.ts';
import { alertShown, toastShown } from '../features/notices/noticesSlice.ts';
import { cancelRequested, endTriggered, START_TIMEOUT_MS, startRequested } from '../features/session/sessionSlice.ts';
import { services as allServices, type LiveServices } from './context.ts';
import { LIVE_CHUNK_RETRY_MS, LIVE_CHUNK_WAIT_MS, type LiveChunk } from './liveLoader.ts';
import { liveSaga } from './liveSaga.ts';
import { setupSagas, type Harness } from './testing/harness.ts';

/** A loader whose import() the test settles: each call gives a new pending load. */
function controlledLoader() {
  const loads: { resolve: (chunk: LiveChunk) => void; reject: (error: Error) => void }[] = [];
  const load = vi.fn(
    () =>
      new Promise<LiveChunk>((resolve, reject) => {
        loads.push({ resolve, reject });
      }),
  );
  return { load, loads, last: () => loads[loads.length - 1]! };
}

let h: Harness;
let loader: ReturnType<typeof controlledLoader>;
let idle: () => void;

beforeEach(() => {
  vi.useFakeTimers();
  loader = controlledLoader();
  h = setupSagas({ loadLive: loader.load }, (fakes) => {
    fakes.platform.whenIdle.mockImplementation(() => new Promise<void>((resolve) => (idle = resolve)));
  });
});

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

/** The account is shown and the page idle: the background fetch starts. */
async function pageIdle() {
  await h.flush();
  idle();
  await h.flush();
}

async function chunkArrives() {
  loader.last().resolve({ liveSaga });
  await h.flush();
}

async function chunkFails() {
  loader.last().reject(new TypeError('Failed to fetch dynamically imported module'));
  await h.flush();
}

describe('the live chunk', () => {
  it('waits for the account before it waits for an idle page', async () => {
    h.task.cancel();
    let answer!: () => void;
    h = setupSagas({ loadLive: loader.load }, (fakes) => {
      const original = fakes.account.fetchUserInfo.getMockImplementation()!;
      fakes.account.fetchUserInfo.mockImplementation((uid) => new Promise((resolve) => (answer = () => resolve(original(uid)))));
    });
    await h.flush();
    expect(h.platform.whenIdle).not.toHaveBeenCalled();
    answer();
    await h.flush();
    expect(h.platform.whenIdle).toHaveBeenCalledTimes(1);
    expect(loader.load).toHaveBeenCalledTimes(1);
  });

  it('is fetched once the account has loaded and the page is idle, not before', async () => {
    await h.flush();
    expect(h.state().account.status).toBe('valid');
    expect(loader.load).not.toHaveBeenCalled();
    idle();
    await h.flush();
    expect(loader.load).toHaveBeenCalledTimes(1);
    await chunkArrives();
    // Its sagas run: a Start chat now starts a session at once.
    h.dispatch(startRequested());
    await h.flush();
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
    expect(loader.load).toHaveBeenCalledTimes(1);
  });

  it('is fetched at once on a Start chat before that, and the session starts when it arrives', async () => {
    h.dispatch(startRequested());
    await h.flush();
    expect(loader.load).toHaveBeenCalledTimes(1);
    expect(h.session().status).toBe('connecting');
    expect(h.live.startLive).not.toHaveBeenCalled();
    // Leaving asks for confirmation from the tap on, as for any start.
    expect(h.platform.setLeaveGuard).toHaveBeenLastCalledWith(true);
    await chunkArrives();
    expect(h.platform.setLeaveGuard).toHaveBeenLastCalledWith(true);
    expect(h.live.getRoute).toHaveBeenCalledTimes(1);
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
    expect(h.session().status).toBe('connecting');
  });

  it('a Start chat while it is being fetched waits for it', async () => {
    await pageIdle();
    expect(loader.load).toHaveBeenCalledTimes(1);
    h.dispatch(startRequested());
    await h.flush();
    expect(h.live.startLive).not.toHaveBeenCalled();
    await chunkArrives();
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
  });

  it('Cancel while the chunk is awaited ends the start there, and the chunk starts nothing when it comes', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(cancelRequested());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'cancelled' });
    expect(h.types()).toEqual(expect.arrayContaining(['session/sessionEnding', 'session/sessionEnded']));
    expect(h.platform.setLeaveGuard).toHaveBeenLastCalledWith(false);
    await chunkArrives();
    expect(h.live.startLive).not.toHaveBeenCalled();
    expect(h.session().status).toBe('idle');
  });

  it('a hidden page while the chunk is awaited ends the start as it would end a session', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(endTriggered('hidden'));
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'hidden' });
  });

  it('a second Start chat while the chunk is awaited says "please wait" and changes nothing', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(startRequested());
    await h.flush();
    expect(h.ofType(toastShown.type).map((a) => a.payload)).toEqual([expect.objectContaining({ message: { id: catalogue.pleaseWait.id } })]);
    expect(h.session().status).toBe('connecting');
    expect(loader.load).toHaveBeenCalledTimes(1);
  });

  it('the 15 s count from the tap: a start that waited 9 s for the chunk has 6 s left for the rest', async () => {
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(9000);
    await chunkArrives();
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
    await h.advance(START_TIMEOUT_MS - 9000 - 100);
    expect(h.session().status).toBe('connecting');
    await h.advance(100);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'timeout' });
  });

  // Issue 29: a fetch that stalls (neither comes nor fails) ended every start silently at 15 s.
  it('a chunk whose fetch stalls ends the start within its 15 s with the alert and its Refresh, and the next Start chat says so again', async () => {
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(LIVE_CHUNK_WAIT_MS - 1);
    expect(h.session().status).toBe('connecting');
    expect(h.ofType(alertShown.type)).toEqual([]);
    await h.advance(1);
    const alerts = () => h.ofType(alertShown.type).map((a) => a.payload);
    expect(alerts()).toEqual([expect.objectContaining({ kind: 'alert', message: { id: catalogue.appLoadFailed.id }, action: 'reload' })]);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'startFailed' });
    expect(LIVE_CHUNK_WAIT_MS).toBeLessThan(START_TIMEOUT_MS);
    // The stalled fetch is still the one an import() would wait on: the next start ends the same way.
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(LIVE_CHUNK_WAIT_MS);
    expect(alerts()).toHaveLength(2);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'startFailed' });
    // And a chunk that does come late starts the session of the Start chat after it.
    await chunkArrives();
    h.dispatch(startRequested());
    await h.flush();
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
  });

  it('a chunk that fails while a start waits says so, and the next Start chat fetches it again and starts', async () => {
    h.dispatch(startRequested());
    await h.flush();
    await chunkFails();
    expect(h.ofType(alertShown.type).map((a) => a.payload)).toEqual([expect.objectContaining({ kind: 'alert', message: { id: catalogue.appLoadFailed.id }, action: 'reload' })]);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'startFailed' });
    expect(loader.load).toHaveBeenCalledTimes(1);

    h.dispatch(startRequested());
    await h.flush();
    expect(loader.load).toHaveBeenCalledTimes(2);
    await chunkArrives();
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
  });

  it('a background fetch that fails is tried again a little later, without a word to the visitor', async () => {
    await pageIdle();
    await chunkFails();
    expect(h.ofType(alertShown.type)).toEqual([]);
    await h.advance(LIVE_CHUNK_RETRY_MS[0] - 1);
    expect(loader.load).toHaveBeenCalledTimes(1);
    await h.advance(1);
    expect(loader.load).toHaveBeenCalledTimes(2);
    await chunkFails();
    await h.advance(LIVE_CHUNK_RETRY_MS[1]);
    expect(loader.load).toHaveBeenCalledTimes(3);
  });

  it('a Start chat while a failed fetch waits to be tried again fetches it at once and starts', async () => {
    await pageIdle();
    await chunkFails();
    h.dispatch(startRequested());
    await h.flush();
    expect(loader.load).toHaveBeenCalledTimes(2);
    await chunkArrives();
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
  });

  it('brings the live services, which join the first chunk’s in the sagas’ context', async () => {
    const seen: unknown[] = [];
    const marker = { live: 'live-of-the-chunk' } as unknown as LiveServices;
    function* grandchild() {
      const all = yield* allServices();
      seen.push(all.live, all.account, all.platform);
    }
    function* probe() {
      yield* fork(grandchild);
    }
    h.dispatch(startRequested());
    await h.flush();
    loader.last().resolve({ liveSaga: probe, createServices: () => marker });
    await h.flush();
    expect(seen).toEqual(['live-of-the-chunk', h.account, h.platform]);
  });
});
