/**
 * A muted, inline <video> made outside React. React attaches a listener for every media event
 * to each <video> it renders, so a playing video's timeupdate alone wakes the main thread with
 * a React dispatch four times a second, for nothing when no handler is set (bench/README.md,
 * "What a call costs"). The caller adds the listeners it needs.
 *
 * Muted, so that it may autoplay; inline, so that iOS and WeChat's X5 do not take it full screen.
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
