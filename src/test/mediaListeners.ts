import { vi } from 'vitest';

/**
 * Records the types of the listeners added to each <video> from now on (they are still added):
 * what React attaches to a <video> it renders, or what a component adds to one it made. Undone
 * by vi.restoreAllMocks().
 */
export function recordVideoListeners(): Map<EventTarget, string[]> {
  const added = new Map<EventTarget, string[]>();
  const addEventListener = HTMLElement.prototype.addEventListener;
  vi.spyOn(HTMLVideoElement.prototype, 'addEventListener').mockImplementation(function (this: HTMLVideoElement, ...args: Parameters<HTMLElement['addEventListener']>) {
    added.set(this, [...(added.get(this) ?? []), args[0]]);
    addEventListener.apply(this, args);
  });
  return added;
}

/**
 * Which of `types` dispatched on `elements` reach a capture listener on document.body (below
 * the window, above React's root), as "type TAG" in order.
 */
export function eventsPastTheWindow(elements: HTMLElement[], types: string[]): string[] {
  const seen: string[] = [];
  const listen = (event: Event) => seen.push(`${event.type} ${(event.target as Element).tagName}`);
  for (const type of types) document.body.addEventListener(type, listen, true);
  try {
    for (const element of elements) for (const type of types) element.dispatchEvent(new Event(type));
  } finally {
    for (const type of types) document.body.removeEventListener(type, listen, true);
  }
  return seen;
}
