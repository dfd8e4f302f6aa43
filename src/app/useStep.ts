import { useEffect, type RefObject } from 'react';

/** Whether the visitor asked the system for less motion. */
export const prefersReducedMotion = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/**
 * Steps a small looping animation that sits over the avatar's playing video (the thinking
 * dots, the voice level bars): `show(element, step)` with step 0, 1, … count − 1, 0, …
 * every `periodMs` while `running`, and with step 0 at once. A CSS animation there made
 * the compositor draw 60 frames a second for as long as it ran, each costing about as
 * much as a frame of the video (bench/call-cost.mjs); a few steps a second look alike and
 * cost a few frames. The steps change the element directly, without a render: a React
 * render for every step was most of the app's script time in a call. The timer runs only
 * while `running` and the component is mounted; when it stops, `rest(element)` undoes
 * what the steps changed.
 */
export function useStep<E extends HTMLElement>(
  ref: RefObject<E | null>,
  count: number,
  periodMs: number,
  running: boolean,
  show: (element: E, step: number) => void,
  rest?: (element: E) => void,
): void {
  useEffect(() => {
    const element = ref.current;
    if (!element || !running) return;
    let step = 0;
    show(element, step);
    const timer = setInterval(() => {
      step = (step + 1) % count;
      show(element, step);
    }, periodMs);
    return () => {
      clearInterval(timer);
      rest?.(element);
    };
    // Callers pass module-level functions, so a render does not restart the timer.
  }, [ref, count, periodMs, running, show, rest]);
}
