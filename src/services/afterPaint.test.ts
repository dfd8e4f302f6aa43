import { afterEach, describe, expect, it, vi } from 'vitest';
import { AFTER_PAINT_MAX_MS, afterNextPaint, IDLE_MAX_WAIT_MS, LOAD_MAX_WAIT_MS, whenIdle } from './afterPaint.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('afterNextPaint', () => {
  it('resolves in a task after the next animation frame, not before', async () => {
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    void afterNextPaint().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    frames.shift()?.(0);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('resolves after a bounded wait when no frame comes (a hidden page)', async () => {
    vi.stubGlobal('requestAnimationFrame', () => 0);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    void afterNextPaint().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(AFTER_PAINT_MAX_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });
});

describe('whenIdle', () => {
  function loading() {
    const readyState = vi.spyOn(document, 'readyState', 'get').mockReturnValue('interactive');
    return () => {
      readyState.mockReturnValue('complete');
      window.dispatchEvent(new Event('load'));
    };
  }

  it('waits for the load event, then for an idle moment', async () => {
    const load = loading();
    const idle: IdleRequestCallback[] = [];
    const requestIdle = vi.fn((cb: IdleRequestCallback, _options?: IdleRequestOptions) => idle.push(cb));
    vi.stubGlobal('requestIdleCallback', requestIdle);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    void whenIdle().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(requestIdle).not.toHaveBeenCalled();
    load();
    expect(requestIdle).toHaveBeenCalledWith(expect.any(Function), { timeout: IDLE_MAX_WAIT_MS });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    idle.shift()?.({ didTimeout: false, timeRemaining: () => 10 });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    // The cap's timer was cleared: the wait is over.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not wait for a load event that never comes (an image that hangs) beyond its cap', async () => {
    loading();
    const requestIdle = vi.fn((cb: IdleRequestCallback) => cb({ didTimeout: false, timeRemaining: () => 10 }));
    vi.stubGlobal('requestIdleCallback', requestIdle);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    void whenIdle().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(LOAD_MAX_WAIT_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it('stands in for requestIdleCallback with a short timer where it is missing (Safari)', async () => {
    vi.stubGlobal('requestIdleCallback', undefined);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let done = false;
    void whenIdle().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(199);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });
});
