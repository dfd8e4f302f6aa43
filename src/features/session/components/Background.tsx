import { useEffect, useRef } from 'react';
import { useAppSelector } from '../../../app/hooks.ts';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import { mutedInlineVideo, useVideoOutsideReact } from './mutedVideo.ts';
import './Background.css';

/**
 * The account's background (an image or a looping video) behind the avatar.
 * Decorative: hidden from assistive technology. Without one, a brand gradient.
 */
export function Background() {
  const background = useAppSelector(selectAccountInfo)?.background ?? null;
  if (background?.kind === 'video') {
    return <BackgroundVideo url={background.url} />;
  }
  if (background?.kind === 'image') {
    return (
      <div className="stage-bg" aria-hidden="true">
        <img className="stage-bg__media" src={background.url} alt="" decoding="async" />
      </div>
    );
  }
  return <div className="stage-bg stage-bg--plain" aria-hidden="true" />;
}

/** A looping background video, made outside React and kept from its events (mutedVideo.ts): its playing never wakes React. */
function BackgroundVideo({ url }: { url: string }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const videoRef = useVideoOutsideReact(hostRef, makeBackgroundVideo);
  useEffect(() => {
    const video = videoRef.current;
    video.src = url;
    return () => {
      // Stops its download and frees its decoder.
      video.removeAttribute('src');
      video.load();
    };
  }, [videoRef, url]);
  return <div ref={hostRef} className="stage-bg" aria-hidden="true" />;
}

function makeBackgroundVideo(): HTMLVideoElement {
  const video = mutedInlineVideo('stage-bg__media');
  video.loop = true;
  video.autoplay = true;
  video.preload = 'auto';
  return video;
}
