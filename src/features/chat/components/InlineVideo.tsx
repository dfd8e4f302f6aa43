import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { videoStarted, videoStopped } from '../chatSlice.ts';
import { chatMessages } from '../messages.ts';
import { isHttpUrl, videoKey } from '../model.ts';
import { selectPlayingVideo } from '../selectors.ts';
import { PlayIcon } from './icons.tsx';
import './parts.css';

interface InlineVideoProps {
  messageKey: string;
  msgId: string;
  partIndex: number;
  url: string;
}

/**
 * A video in a message, played inline. Until the visitor taps it, it is a play button in
 * the video's box, not a <video>: a media element with its controls is a long task to
 * create (about 50 ms of the main thread, 190 ms at 4× CPU, while a call is going on:
 * bench/call-cost.mjs) and fetches the file's start whether or not anyone watches. The
 * tap makes the player and starts it, in the same gesture.
 *
 * Starting it is announced through the store (videoStarted): every other inline video
 * sees it is no longer the playing one and pauses; a break clears the playing video, so
 * all pause. Start and stop are reported once each (the chat saga sends the play frames).
 */
export function InlineVideo({ messageKey, msgId, partIndex, url }: InlineVideoProps) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const ref = useRef<HTMLVideoElement>(null);
  const reported = useRef(false);
  const self = videoKey(messageKey, partIndex);
  const playing = useAppSelector(selectPlayingVideo);
  const [made, setMade] = useState(false);

  useEffect(() => {
    const video = ref.current;
    if (video && playing !== self && !video.paused) video.pause();
  }, [playing, self]);

  // Made by a tap: started at once, still inside the tap (a layout effect runs in the
  // render the click flushes), as iOS asks of a video with sound.
  useLayoutEffect(() => {
    if (!made || !ref.current) return;
    // A refused start (no sound allowed yet) leaves the player and its controls for a second tap.
    Promise.resolve(ref.current.play()).catch(() => {});
  }, [made]);

  if (!isHttpUrl(url)) return null;

  if (!made) {
    return (
      <button type="button" className="inline-video inline-video--idle" aria-label={intl.formatMessage(chatMessages.playVideo)} onClick={() => setMade(true)}>
        <span className="inline-video__play">
          <PlayIcon />
        </span>
      </button>
    );
  }

  const started = () => {
    if (reported.current) return;
    reported.current = true;
    dispatch(videoStarted({ video: self, msgId }));
  };
  // 'pause' and then 'ended' both fire when a video finishes: one report.
  const stopped = () => {
    if (!reported.current) return;
    reported.current = false;
    dispatch(videoStopped({ video: self, msgId }));
  };

  return (
    <video
      ref={ref}
      className="inline-video"
      src={url}
      controls
      playsInline
      preload="metadata"
      controlsList="nodownload noremoteplayback"
      disablePictureInPicture
      aria-label={intl.formatMessage(chatMessages.video)}
      onPlay={started}
      onPause={stopped}
      onEnded={stopped}
    />
  );
}
