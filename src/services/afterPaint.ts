/**
 * Work a tap sets off that its own answer on screen does not need waits for that answer
 * to paint: the tap's interaction to next paint is then the handler and the render only.
 * requestAnimationFrame runs just before the next frame's paint; a task queued from it
 * runs after that paint. A page that gets no frames (hidden, or a background tab) would
 * wait for ever: a timer bounds the wait. (scheduler.yield is not in iOS Safari nor in
 * Firefox 115, the oldest browsers supported.)
 */
export const AFTER_PAINT_MAX_MS = 100;

export function afterNextPaint(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, AFTER_PAINT_MAX_MS);
    if (typeof requestAnimationFrame !== 'function') return;
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

/** The longest wait for an idle moment before whenIdle() resolves anyway. */
export const IDLE_MAX_WAIT_MS = 2000;
/** The longest wait for the load event: an image that hangs (an account's background on a slow host) must not hold back the rest. */
export const LOAD_MAX_WAIT_MS = 5000;

/**
 * Resolves once the page has loaded (its photo and stylesheets are in) and the main
 * thread has an idle moment: for downloads the screen on show does not need, so that
 * they do not compete with it. requestIdleCallback is missing from Safari: a short
 * timer after the load event stands in for it there.
 */
export function whenIdle(): Promise<void> {
  return new Promise((resolve) => {
    let waiting = true;
    const idle = () => {
      if (!waiting) return;
      waiting = false;
      clearTimeout(cap);
      window.removeEventListener('load', idle);
      if (typeof requestIdleCallback === 'function') requestIdleCallback(() => resolve(), { timeout: IDLE_MAX_WAIT_MS });
      else setTimeout(resolve, 200);
    };
    const cap = setTimeout(idle, LOAD_MAX_WAIT_MS);
    if (document.readyState === 'complete') idle();
    else window.addEventListener('load', idle, { once: true });
  });
}

/** A promise that settles in a later task: work after it is not part of the current one. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
