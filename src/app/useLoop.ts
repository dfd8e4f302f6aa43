import { useEffect, type RefObject } from 'react';

/** Whether the visitor asked the system for less motion. */
const prefersReducedMotion = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/** A small looping animation over the avatar's video: what its children go through, and how. */
export interface Loop {
  /** Keyframes of transform and opacity only, each eased `step-end`: a few pictures, held in turn. */
  keyframes: Keyframe[];
  periodMs: number;
  /** How far into the loop each child starts, in ms, so that they do not move together. */
  phasesMs: readonly number[];
}

/**
 * Runs `loop` on each child of `ref`'s element while `running` (and the component is mounted),
 * as Web Animations, and cancels them after, which leaves the stylesheet's picture. For a
 * visitor who asked for less motion it runs `stillLoop` instead, or nothing when that is null;
 * the question is asked when the loop starts, not at every render of a component that renders
 * several times a second.
 *
 * Why Web Animations, and not a CSS animation or a timer: the browser's compositor runs an
 * animation of transform and opacity by itself, so the page is not drawn again for a step,
 * and a stepped one makes the compositor draw only when a picture changes, not 60 frames a
 * second over the video. A CSS animation would do the same in a bare page, but React listens
 * for `animationiteration` on its root, and with such a listener in the document Chromium
 * brings every CSS animation back to the main thread at each loop's end (about 20 style
 * updates a second for the four voice bars; bench/call-cost/trace.mjs). Web Animations fire
 * no such event. A timer stepping the elements drew the page for every step.
 *
 * Where Element.animate is missing (no supported phone; jsdom), the children stand still.
 */
export function useLoop<E extends HTMLElement>(ref: RefObject<E | null>, loop: Loop, running: boolean, stillLoop: Loop | null): void {
  useEffect(() => {
    const element = ref.current;
    const chosen = prefersReducedMotion() ? stillLoop : loop;
    if (!element || !running || !chosen) return;
    const animations = [...element.children].flatMap((child, i) =>
      typeof child.animate === 'function'
        ? [child.animate(chosen.keyframes, { duration: chosen.periodMs, iterations: Infinity, delay: -(chosen.phasesMs[i] ?? 0) })]
        : [],
    );
    return () => {
      for (const animation of animations) animation.cancel();
    };
    // Callers pass module-level loops, so a render does not restart the animations.
  }, [ref, loop, running, stillLoop]);
}
