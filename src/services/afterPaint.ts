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
