/**
 * Calls `onFrame` once, when `video` presents a new frame; returns the cancel. With
 * requestVideoFrameCallback where the browser has it (Chrome 83, Safari 15.4, Firefox 132);
 * elsewhere by looking at the frames it has presented (or its clock) every POLL_MS, since the
 * avatar's timeupdate events are kept from every listener (mutedVideo.ts).
 */
const POLL_MS = 250;

type FrameCallbackVideo = HTMLVideoElement & {
  requestVideoFrameCallback?: (callback: () => void) => number;
  cancelVideoFrameCallback?: (handle: number) => void;
};

function framesShown(video: HTMLVideoElement): number {
  return video.getVideoPlaybackQuality?.().totalVideoFrames ?? 0;
}

export function onNextFrame(video: HTMLVideoElement, onFrame: () => void): () => void {
  const v = video as FrameCallbackVideo;
  if (typeof v.requestVideoFrameCallback === 'function') {
    const handle = v.requestVideoFrameCallback(() => onFrame());
    return () => v.cancelVideoFrameCallback?.(handle);
  }
  const frames = framesShown(video);
  const time = video.currentTime;
  const timer = setInterval(() => {
    if (framesShown(video) === frames && video.currentTime === time) return;
    clearInterval(timer);
    onFrame();
  }, POLL_MS);
  return () => clearInterval(timer);
}
