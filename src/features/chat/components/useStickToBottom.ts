import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/** The sentinel counts as in view this far below the scroller's edge, so a few pixels off still sticks. */
const BOTTOM_SLACK_PX = 48;
/** How long a programmatic smooth scroll may take before "not at bottom" reports count again. */
const SMOOTH_SCROLL_MS = 900;

function toEnd(el: HTMLElement | null, behavior: ScrollBehavior = 'auto'): void {
  if (!el) return;
  if (behavior === 'smooth' && typeof el.scrollTo === 'function') el.scrollTo({ top: el.scrollHeight, behavior });
  else el.scrollTop = el.scrollHeight;
}

const PINNED = 'chat__scroller--pinned';

/**
 * Once the messages overflow the log, the log's box is pinned at the height it has reached,
 * which is then its greatest (the slot's max-height), and contained (`chat__scroller--pinned`):
 * its size no longer depends on what is inside it. A new message, or a reply streaming in,
 * then lays out and paints the log alone, not the whole bottom of the call over the video.
 * Those are a call's heaviest frames: at 4× CPU throttling they took about a sixth less
 * main-thread time (bench/README.md, "call-cost"). A log that empties again (a new chat)
 * lets go, and so does a resize of the window (a new maximum).
 */
function pinWhenFull(root: HTMLElement, inner: HTMLElement): void {
  const pinned = root.classList.contains(PINNED);
  if (!pinned && root.scrollHeight > root.clientHeight + 1) {
    root.style.height = `${root.clientHeight}px`;
    root.classList.add(PINNED);
  } else if (pinned && inner.offsetHeight + 1 < root.clientHeight) {
    unpin(root);
  }
}

function unpin(root: HTMLElement): void {
  if (!root.classList.contains(PINNED)) return;
  root.classList.remove(PINNED);
  root.style.height = '';
}

/**
 * Follows the newest message while the visitor is at the bottom; once they
 * scroll up, nothing moves under their eyes and `atBottom` turns false (the log
 * shows Back to bottom).
 *
 * "At the bottom" comes from an IntersectionObserver on a sentinel after the
 * last message, not from scroll events: no work per scroll frame. Growth is
 * followed with a ResizeObserver on the content; resize observations run before
 * intersection observations in the same frame, so the sentinel is back in view
 * before anyone decides the visitor scrolled away. Growth above the viewport
 * while reading is held by the browser's scroll anchoring (overflow-anchor),
 * and media keep fixed boxes so they never grow late.
 */
export function useStickToBottom(newestKey: string | null, followNewest: boolean) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLOListElement>(null);
  const sentinelRef = useRef<HTMLDivElement>(null);
  const [atBottom, setAtBottom] = useState(true);
  const stick = useRef(true);
  const smoothUntil = useRef(0);

  useEffect(() => {
    const root = scrollerRef.current;
    const target = sentinelRef.current;
    if (!root || !target || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const visible = entries[entries.length - 1]?.isIntersecting ?? true;
        // A smooth Back to bottom passes through "not at bottom" on its way down.
        if (!visible && performance.now() < smoothUntil.current) return;
        smoothUntil.current = 0;
        stick.current = visible;
        setAtBottom(visible);
      },
      { root, rootMargin: `0px 0px ${BOTTOM_SLACK_PX}px 0px`, threshold: 0 },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const root = scrollerRef.current;
    const inner = contentRef.current;
    if (!root || !inner || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      pinWhenFull(root, inner);
      if (stick.current) toEnd(root);
    });
    observer.observe(inner);
    observer.observe(root);
    // A new window size is a new maximum: let go, and pin again at the new one.
    const onResize = () => {
      unpin(root);
      pinWhenFull(root, inner);
    };
    window.addEventListener('resize', onResize);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', onResize);
      unpin(root);
    };
  }, []);

  // A new message: follow it if at the bottom, and always when the visitor sent it.
  useLayoutEffect(() => {
    if (newestKey === null) return;
    if (followNewest) stick.current = true;
    if (stick.current) toEnd(scrollerRef.current);
  }, [newestKey, followNewest]);

  const scrollToBottom = useCallback(() => {
    stick.current = true;
    smoothUntil.current = performance.now() + SMOOTH_SCROLL_MS;
    setAtBottom(true);
    const reduced = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
    toEnd(scrollerRef.current, reduced ? 'auto' : 'smooth');
  }, []);

  return { scrollerRef, contentRef, sentinelRef, atBottom, scrollToBottom };
}
