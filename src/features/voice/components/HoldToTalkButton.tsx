import { useId, useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { voiceMessages } from '../messages.ts';
import {
  holdAborted,
  holdPressed,
  holdReleased,
  holdSlid,
  selectHoldPhase,
  selectMicDenied,
  selectWillCancel,
  SLIDE_CANCEL_PX,
} from '../voiceSlice.ts';
import { MicIcon } from '../../../app/icons.tsx';
import { VoiceStatus } from './VoiceStatus.tsx';
import './HoldToTalkButton.css';

interface Press {
  pointerId: number;
  startY: number;
  cancel: boolean;
}

const isHoldKey = (key: string) => key === ' ' || key === 'Enter';

/**
 * Speak mode's centre (docs/requirements.md R21 and R62): hold to record, release to send, slide
 * up about 15 px to cancel; an overlay says which one releasing will do. The pointer is
 * captured on press, so sliding off the button still counts as this gesture; a gesture
 * the browser takes away (pointercancel: a call, a system sheet) cancels. Keyboard users
 * hold Space or Enter; Escape while holding cancels.
 *
 * The button keeps its name `Hold to talk` while held; the overlay carries the rest.
 */
export function HoldToTalkButton() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const phase = useAppSelector(selectHoldPhase);
  const willCancel = useAppSelector(selectWillCancel);
  const micDenied = useAppSelector(selectMicDenied);
  const press = useRef<Press | null>(null);
  const keyHeld = useRef(false);
  const reasonId = useId();
  const recording = phase === 'recording';

  const onPointerDown = (event: PointerEvent<HTMLButtonElement>) => {
    if (event.button !== 0 || press.current || keyHeld.current) return;
    // No focus ring, no text selection, no emulated mouse events after a touch.
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    press.current = { pointerId: event.pointerId, startY: event.clientY, cancel: false };
    dispatch(holdPressed());
  };
  const onPointerMove = (event: PointerEvent<HTMLButtonElement>) => {
    const current = press.current;
    if (!current || current.pointerId !== event.pointerId) return;
    const cancel = current.startY - event.clientY >= SLIDE_CANCEL_PX;
    if (cancel === current.cancel) return;
    current.cancel = cancel;
    dispatch(holdSlid(cancel));
  };
  const end = (event: PointerEvent<HTMLButtonElement>, aborted: boolean) => {
    if (press.current?.pointerId !== event.pointerId) return;
    press.current = null;
    dispatch(aborted ? holdAborted() : holdReleased());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'Escape' && keyHeld.current) {
      keyHeld.current = false;
      dispatch(holdAborted());
      return;
    }
    if (!isHoldKey(event.key)) return;
    // The button's own click on Space/Enter would be a second, meaningless press.
    event.preventDefault();
    if (event.repeat || keyHeld.current || press.current) return;
    keyHeld.current = true;
    dispatch(holdPressed());
  };
  const onKeyUp = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (!isHoldKey(event.key) || !keyHeld.current) return;
    event.preventDefault();
    keyHeld.current = false;
    dispatch(holdReleased());
  };
  const onBlur = () => {
    if (!keyHeld.current) return;
    keyHeld.current = false;
    dispatch(holdAborted());
  };

  const classes = ['hold'];
  if (recording) classes.push(willCancel ? 'hold--cancel' : 'hold--recording');
  if (micDenied) classes.push('hold--blocked');
  return (
    <div className={classes.join(' ')}>
      {recording && (
        <div className="hold__overlay">
          <VoiceStatus />
          <p className="hold__hint">
            {intl.formatMessage(willCancel ? voiceMessages.releaseToCancel : voiceMessages.releaseToSend)}
          </p>
        </div>
      )}
      <button
        type="button"
        className="hold__button"
        aria-describedby={micDenied ? reasonId : undefined}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={(event) => end(event, false)}
        onPointerCancel={(event) => end(event, true)}
        onLostPointerCapture={(event) => end(event, true)}
        onKeyDown={onKeyDown}
        onKeyUp={onKeyUp}
        onBlur={onBlur}
        onContextMenu={(event) => event.preventDefault()}
      >
        <MicIcon />
        <span>{intl.formatMessage(voiceMessages.holdToTalk)}</span>
      </button>
      {micDenied && !recording && (
        <p className="hold__reason" id={reasonId}>
          {intl.formatMessage(voiceMessages.micBlocked)}
        </p>
      )}
    </div>
  );
}
