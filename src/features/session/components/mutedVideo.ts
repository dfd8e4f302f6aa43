import { useLayoutEffect, useRef, type RefObject } from 'react';

/**
 * Media elements that React neither renders nor hears.
 *
 * React attaches a listener for every media event to each <video> it renders, and listens to
 * every media event at its root in the capture phase. A playing element fires timeupdate four
 * times a second, so the avatar's <video> and <audio> woke React's event system eight times a
 * second for the whole call, with no handler to run (docs/decisions.md, "What a call costs").
 * The elements here are made outside React, and their periodic events stop at the window,
 * before React's root sees them.
 */

/** Media events that fire periodically while an element plays (or loads). */
const PERIODIC_MEDIA_EVENTS = ['timeupdate', 'progress'] as const;

/**
 * A muted, inline <video> made outside React; the caller adds the listeners it needs. Muted
 * (the attribute too, which iOS reads for autoplay), so that it may autoplay; inline, so that
 * iOS and WeChat's X5 do not take it full screen (the attributes too: Firefox has no
 * playsInline property, old WebKit and X5 read their own).
 */
export function mutedInlineVideo(className: string): HTMLVideoElement {
  const video = document.createElement('video');
  video.className = className;
  video.muted = true;
  video.defaultMuted = true;
  video.playsInline = true;
  video.setAttribute('playsinline', '');
  video.setAttribute('webkit-playsinline', 'true');
  video.setAttribute('x5-playsinline', 'true');
  return video;
}

/**
 * Stops the elements' periodic media events at the window (capture phase), so they never reach
 * React's root listener. Returns the function that lets them through again.
 *
 * Stopped at the window, they reach no listener at all, the elements' own included: an element
 * whose timeupdate or progress something must hear (a stall watchdog, say) cannot be one of these.
 */
export function keepPeriodicEventsFromReact(...elements: HTMLMediaElement[]): () => void {
  const stop = (event: Event) => {
    if (elements.includes(event.target as HTMLMediaElement)) event.stopPropagation();
  };
  for (const type of PERIODIC_MEDIA_EVENTS) window.addEventListener(type, stop, true);
  return () => {
    for (const type of PERIODIC_MEDIA_EVENTS) window.removeEventListener(type, stop, true);
  };
}

/**
 * A <video> made once for the component's life by `make` (in the ref returned), outside React:
 * in `host` while the component is shown, its periodic events (and those of `alsoKept`) kept
 * from React meanwhile. The caller sets its source in an effect of its own, and lets go of the
 * source when it is done with it.
 */
export function useVideoOutsideReact(host: RefObject<HTMLElement | null>, make: () => HTMLVideoElement, alsoKept: () => HTMLMediaElement[] = () => []): RefObject<HTMLVideoElement> {
  const videoRef = useRef<HTMLVideoElement>(null as unknown as HTMLVideoElement);
  // Made once, on the first render (the lazy initialisation React documents for refs).
  if (videoRef.current === null) videoRef.current = make();
  useLayoutEffect(() => {
    const video = videoRef.current;
    host.current?.append(video);
    const letThrough = keepPeriodicEventsFromReact(video, ...alsoKept());
    return () => {
      letThrough();
      video.remove();
    };
    // `alsoKept` is read when the video is shown: the elements it names live as long as the page.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [host]);
  return videoRef;
}
