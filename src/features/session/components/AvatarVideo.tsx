import { useCallback, useEffect, useLayoutEffect, useRef, useSyncExternalStore } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { createLogger } from '../../../services/logger.ts';
import { avatarAudioElement } from '../../../services/avatarAudio.ts';
import { remoteMedia } from '../../../services/remoteMedia.ts';
import { catalogue } from '../../notices/messages.ts';
import { alertShown, toastShown } from '../../notices/noticesSlice.ts';
import {
  avatarMovedAgain,
  selectMediaRecovery,
  selectNeedsTapToPlay,
  selectReconnecting,
  videoCanPlay,
  videoPlayBlocked,
  videoPlaying,
} from '../sessionSlice.ts';
import { sessionMessages } from '../messages.ts';
import { failureOf, playOutcome, registerAvatarPlayer } from './avatarPlayback.ts';
import { mutedInlineVideo, useVideoOutsideReact } from './mutedVideo.ts';
import { onNextFrame } from './nextFrame.ts';
import './AvatarVideo.css';

const log = createLogger('session-ui');

/**
 * The avatar, full screen. The remote stream plays twice: the muted <video>
 * shows the picture (muted video may autoplay everywhere) and a separate
 * <audio> carries the voice (spec), so a refused audio autoplay never stops
 * the picture from loading. The <audio> is the page's one avatar audio element,
 * unlocked in the Start chat tap (services/avatarAudio.ts). The outcome of play() is
 * reported to the session saga, which decides about watchdogs and the tap-to-play alert;
 * a voice that cannot play for another reason than the autoplay rule leaves the picture
 * playing and says "Audio playback error" (playOutcome).
 *
 * The <video> is made outside React, listens to canplay only, and the periodic media events
 * of both elements never reach React (mutedVideo.ts).
 */
export function AvatarVideo() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const needsTap = useAppSelector(selectNeedsTapToPlay);
  // While the session reconnects, the frozen frame is dimmed under the hint (ReconnectingHint).
  const reconnecting = useAppSelector(selectReconnecting);
  const awaitingVideo = useAppSelector(selectMediaRecovery) === 'awaitingVideo';
  const stream = useSyncExternalStore(remoteMedia.subscribe, remoteMedia.get);
  const videoHostRef = useRef<HTMLDivElement>(null);
  const audioHostRef = useRef<HTMLSpanElement>(null);
  const videoRef = useVideoOutsideReact(videoHostRef, makeAvatarVideo, () => [avatarAudioElement()]);
  const label = intl.formatMessage(sessionMessages.avatarVideo);

  useLayoutEffect(() => {
    videoRef.current.setAttribute('aria-label', label);
  }, [videoRef, label]);

  // The kept audio element sits in this component while it is mounted, and lets go of the
  // session's stream when it unmounts.
  useEffect(() => {
    const audio = avatarAudioElement();
    audioHostRef.current?.append(audio);
    return () => {
      audio.pause();
      audio.srcObject = null;
      audio.remove();
    };
  }, []);

  useEffect(() => {
    videoRef.current.srcObject = stream;
    avatarAudioElement().srcObject = stream;
  }, [videoRef, stream]);
  // …and the picture lets go of it too.
  useEffect(() => {
    const video = videoRef.current;
    return () => {
      video.srcObject = null;
    };
  }, [videoRef]);

  const play = useCallback(
    (manual: boolean) => {
      const video = videoRef.current;
      const audio = avatarAudioElement();
      if (!video.srcObject) return;
      // Both play() calls start in the same tick, so inside a tap both carry the user gesture.
      void Promise.allSettled([video.play(), audio.play()]).then(([videoResult, audioResult]) => {
        switch (playOutcome(videoResult, audioResult)) {
          case 'playing':
            dispatch(videoPlaying());
            break;
          case 'blocked':
            log.info('autoplay refused, waiting for a tap', { manual });
            dispatch(videoPlayBlocked());
            break;
          case 'superseded':
            // A newer srcObject (media reconnect) replaced the one being started; its canplay plays it.
            log.debug('play interrupted by a new source');
            break;
          case 'videoFailed':
            log.warn('avatar play failed', { name: failureOf(videoResult), manual });
            if (manual) dispatch(alertShown({ id: catalogue.playFailed.id }));
            break;
          case 'audioFailed':
            // The picture plays: the session goes on with it (a tap on the avatar tries the voice again).
            log.warn('avatar audio play failed', { name: failureOf(audioResult), manual });
            dispatch(videoPlaying());
            dispatch(toastShown({ id: catalogue.audioPlaybackError.id }));
            break;
        }
      });
    },
    [dispatch, videoRef],
  );

  useEffect(() => registerAvatarPlayer(() => play(true)), [play]);

  // A reconnected media is back for the visitor when the avatar moves: its next frame.
  useEffect(() => {
    if (!awaitingVideo) return;
    return onNextFrame(videoRef.current, () => dispatch(avatarMovedAgain()));
  }, [awaitingVideo, dispatch, videoRef]);

  useEffect(() => {
    const video = videoRef.current;
    const onCanPlay = () => {
      dispatch(videoCanPlay());
      play(false);
    };
    video.addEventListener('canplay', onCanPlay);
    return () => video.removeEventListener('canplay', onCanPlay);
  }, [dispatch, play, videoRef]);

  function onTap() {
    if (needsTap || videoRef.current.paused || avatarAudioElement().paused) play(true);
  }

  return (
    <div className={reconnecting ? 'avatar-video avatar-video--reconnecting' : 'avatar-video'} onClick={onTap}>
      <div ref={videoHostRef} className="avatar-video__host" />
      <span ref={audioHostRef} hidden />
      {needsTap && (
        <button type="button" className="btn btn--glass avatar-video__tap">
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M8 5.5v13l10.5-6.5Z" fill="currentColor" />
          </svg>
          {intl.formatMessage(sessionMessages.tapToPlay)}
        </button>
      )}
    </div>
  );
}

/** The avatar's picture: no picture-in-picture (the attribute too: Firefox reads only that). */
function makeAvatarVideo(): HTMLVideoElement {
  const video = mutedInlineVideo('avatar-video__el');
  video.disablePictureInPicture = true;
  video.setAttribute('disablepictureinpicture', '');
  return video;
}
