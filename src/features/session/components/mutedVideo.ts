/**
 * Media elements that React neither renders nor hears.
 *
 * React attaches a listener for every media event to each <video> it renders, and listens to
 * every media event at its root in the capture phase. A playing element fires timeupdate four
 * times a second, so the avatar's <video> and <audio> woke React's event system eight to twelve
 * times a second for the whole call, with no handler to run (bench/README.md, "What a call
 * costs": 82 ms of main thread a minute in a traced call, 30 in the floor's page for the same
 * events). The elements here are made outside React, and their periodic events stop at the
 * window, before React's root sees them: nothing in the app listens to them.
 */

/** Media events that fire periodically while an element plays (or loads). */
const PERIODIC_MEDIA_EVENTS = ['timeupdate', 'progress'] as const;

/**
 * A muted, inline <video> made outside React; the caller adds the listeners it needs. Muted, so
 * that it may autoplay; inline, so that iOS and WeChat's X5 do not take it full screen.
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
