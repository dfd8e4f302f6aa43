import { useEffect, useRef, type PointerEvent } from 'react';

/** docs/requirements.md R107: a long press is about 500 ms. */
export const LONG_PRESS_MS = 500;
/** A finger that moves further than this is scrolling the log, not pressing. */
const MOVE_TOLERANCE_PX = 10;

/**
 * Pointer handlers that call `onLongPress` after the pointer stayed down for
 * LONG_PRESS_MS. The click the browser sends when that finger lifts must not
 * count as a tap: `consumed()` says so, once.
 */
export function useLongPress(onLongPress: () => void, ms = LONG_PRESS_MS) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const origin = useRef<{ x: number; y: number } | null>(null);
  const fired = useRef(false);
  const callback = useRef(onLongPress);
  useEffect(() => {
    callback.current = onLongPress;
  });

  const cancel = () => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    origin.current = null;
  };
  useEffect(() => cancel, []);

  return {
    handlers: {
      onPointerDown(event: PointerEvent) {
        if (event.button !== 0) return;
        cancel();
        fired.current = false;
        origin.current = { x: event.clientX, y: event.clientY };
        timer.current = setTimeout(() => {
          timer.current = null;
          fired.current = true;
          callback.current();
        }, ms);
      },
      onPointerMove(event: PointerEvent) {
        const start = origin.current;
        if (start && Math.hypot(event.clientX - start.x, event.clientY - start.y) > MOVE_TOLERANCE_PX) cancel();
      },
      onPointerUp: cancel,
      onPointerCancel: cancel,
      onPointerLeave: cancel,
    },
    /** True (once) when the click being handled ends a long press. */
    consumed(): boolean {
      const was = fired.current;
      fired.current = false;
      return was;
    },
  };
}
