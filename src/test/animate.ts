import { vi } from 'vitest';

/** One Element.animate call, as a stub recorded it. */
export interface AnimateCall {
  element: Element;
  keyframes: Keyframe[];
  options: KeyframeAnimationOptions;
  cancel: ReturnType<typeof vi.fn>;
}

/**
 * Element.animate, which jsdom lacks: every call is recorded with its element, and its
 * animation's cancel is a spy. `restoreAnimate` takes the stub away again.
 */
export function stubAnimate(): AnimateCall[] {
  const calls: AnimateCall[] = [];
  HTMLElement.prototype.animate = function animate(this: Element, keyframes, options) {
    const cancel = vi.fn();
    calls.push({ element: this, keyframes: keyframes as Keyframe[], options: options as KeyframeAnimationOptions, cancel });
    return { cancel } as unknown as Animation;
  };
  return calls;
}

export function restoreAnimate(): void {
  delete (HTMLElement.prototype as Partial<HTMLElement>).animate;
}
