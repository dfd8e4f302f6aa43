import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answers, TimeoutError, untilAborted, waitAtMost, withTimeout } from './deadline.ts';

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** What `promise` has come to so far: 'pending' until it settles. */
function watch<T>(promise: Promise<T>) {
  const state: { outcome: 'pending' | 'fulfilled' | 'rejected'; value?: T; reason?: unknown } = { outcome: 'pending' };
  promise.then(
    (value) => Object.assign(state, { outcome: 'fulfilled', value }),
    (reason: unknown) => Object.assign(state, { outcome: 'rejected', reason }),
  );
  return state;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('withTimeout', () => {
  it('gives the value of a promise that fulfils in time, and leaves no timer behind', async () => {
    const call = deferred<string>();
    const result = watch(withTimeout(call.promise, 1000));
    call.resolve('answer');
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'fulfilled', value: 'answer' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes on a rejection that comes in time', async () => {
    const call = deferred<string>();
    const result = watch(withTimeout(call.promise, 1000));
    const failure = new Error('refused');
    call.reject(failure);
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'rejected', reason: failure });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with a TimeoutError saying how long it waited once the time runs out, not before', async () => {
    const call = deferred<string>();
    const result = watch(withTimeout(call.promise, 1000));
    await vi.advanceTimersByTimeAsync(999);
    expect(result.outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result.outcome).toBe('rejected');
    expect(result.reason).toBeInstanceOf(TimeoutError);
    expect((result.reason as Error).message).toBe('no answer in 1000 ms');
    // A late answer changes nothing.
    call.resolve('too late');
    await vi.advanceTimersByTimeAsync(0);
    expect(result.outcome).toBe('rejected');
  });

  it('takes the message the caller gives', async () => {
    const result = watch(withTimeout(new Promise(() => {}), 10, 'the microphone did not open'));
    await vi.advanceTimersByTimeAsync(10);
    expect((result.reason as Error).message).toBe('the microphone did not open');
  });

  it('tells a timeout from a promise that itself rejects with a TimeoutError', async () => {
    const own = new TimeoutError('the caller’s own');
    const result = watch(withTimeout(Promise.reject(own), 1000));
    await vi.advanceTimersByTimeAsync(0);
    expect(result.reason).toBe(own);
  });
});

describe('waitAtMost', () => {
  it('is true when the promise fulfils in time', async () => {
    const call = deferred<void>();
    const result = watch(waitAtMost(call.promise, 500));
    await vi.advanceTimersByTimeAsync(499);
    call.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'fulfilled', value: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is false once the time runs out', async () => {
    const result = watch(waitAtMost(new Promise(() => {}), 500));
    await vi.advanceTimersByTimeAsync(499);
    expect(result.outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({ outcome: 'fulfilled', value: false });
  });

  it('passes on a rejection that comes in time', async () => {
    const failure = new Error('no gesture');
    const result = watch(waitAtMost(Promise.reject(failure), 500));
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'rejected', reason: failure });
  });
});

describe('answers', () => {
  it('is true for a call that fulfils in time', async () => {
    const result = watch(answers(Promise.resolve('ok'), 100));
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'fulfilled', value: true });
  });

  it('is false for a call that rejects, without rejecting itself', async () => {
    const result = watch(answers(Promise.reject(new Error('worker gone')), 100));
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'fulfilled', value: false });
  });

  it('is false for a call that does not answer in time', async () => {
    const result = watch(answers(new Promise(() => {}), 100));
    await vi.advanceTimersByTimeAsync(99);
    expect(result.outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({ outcome: 'fulfilled', value: false });
  });
});

describe('untilAborted', () => {
  it('gives the value when the promise wins, and leaves no abort listener behind', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const result = watch(untilAborted(Promise.resolve('sdp'), controller.signal, () => new Error('aborted')));
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'fulfilled', value: 'sdp' });
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('rejects with the given reason as soon as the signal aborts, whatever the promise does later', async () => {
    const controller = new AbortController();
    const call = deferred<string>();
    const reason = new Error('hung up');
    const result = watch(untilAborted(call.promise, controller.signal, () => reason));
    await vi.advanceTimersByTimeAsync(0);
    expect(result.outcome).toBe('pending');
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'rejected', reason });
    call.resolve('late');
    await vi.advanceTimersByTimeAsync(0);
    expect(result.outcome).toBe('rejected');
  });

  it('rejects at once when the signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const reason = new Error('already');
    const result = watch(untilAborted(new Promise(() => {}), controller.signal, () => reason));
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toEqual({ outcome: 'rejected', reason });
  });
});
