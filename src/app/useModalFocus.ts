import { useEffect, useRef, type RefObject } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Focus management for our modal layers (language sheet, alert). We don't use
 * <dialog>.showModal(): jsdom lacks it and older in-app browsers (WeChat, QQ)
 * ship an incomplete one. Instead: focus moves in on open, Tab cycles inside,
 * Escape cancels, and focus returns to where it was on close. The page behind
 * is made `inert` by App, so pointer and screen-reader users stay inside too.
 */
export function useModalFocus(
  ref: RefObject<HTMLElement | null>,
  { initialFocus, onEscape }: { initialFocus?: string; onEscape?: () => void },
): void {
  // The latest onEscape, without re-running the focus effect (which would move focus again).
  const escapeRef = useRef(onEscape);
  useEffect(() => {
    escapeRef.current = onEscape;
  });
  const initialRef = useRef(initialFocus);

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const selector = initialRef.current;
    const first = (selector && root.querySelector<HTMLElement>(selector)) || root.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? root).focus();

    function onKeyDown(event: KeyboardEvent) {
      if (!root) return;
      if (event.key === 'Escape' && escapeRef.current) {
        event.preventDefault();
        escapeRef.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.tabIndex >= 0);
      const head = items[0];
      const tail = items[items.length - 1];
      if (!head || !tail) return;
      if (event.shiftKey && document.activeElement === head) {
        event.preventDefault();
        tail.focus();
      } else if (!event.shiftKey && document.activeElement === tail) {
        event.preventDefault();
        head.focus();
      }
    }
    root.addEventListener('keydown', onKeyDown);
    return () => {
      root.removeEventListener('keydown', onKeyDown);
      if (previous && previous.isConnected) previous.focus();
    };
  }, [ref]);
}
