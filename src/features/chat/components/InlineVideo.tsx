import { useEffect, useRef } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { videoStarted, videoStopped } from '../chatSlice.ts';
import { chatMessages } from '../messages.ts';
import { isHttpUrl, videoKey } from '../model.ts';
import { selectPlayingVideo } from '../selectors.ts';
import './parts.css';

interface InlineVideoProps {
  messageKey: string;
  msgId: string;
  partIndex: number;
  url: string;
}

/**
 * A video in a message, played inline. Starting it is announced through the
 * store (videoStarted): every other inline video sees it is no longer the
 * playing one and pauses; a break clears the playing video, so all pause.
 * Start and stop are reported once each (the chat saga sends the play frames).
 */
export function InlineVideo({ messageKey, msgId, partIndex, url }: InlineVideoProps) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const ref = useRef<HTMLVideoElement>(null);
  const reported = useRef(false);
  const self = videoKey(messageKey, partIndex);
  const playing = useAppSelector(selectPlayingVideo);

  useEffect(() => {
    const video = ref.current;
    if (video && playing !== self && !video.paused) video.pause();
  }, [playing, self]);

  if (!isHttpUrl(url)) return null;

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
