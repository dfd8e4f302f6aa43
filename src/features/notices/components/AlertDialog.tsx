import { useRef } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { useModalFocus } from '../../../app/useModalFocus.ts';
import { playAvatar } from '../../session/components/avatarPlayback.ts';
import { alertActionTaken, alertDismissed, selectAlert, type Notice } from '../noticesSlice.ts';
import { noticeUiMessages } from './messages.ts';
import { useNoticeText } from './useNoticeText.ts';
import './AlertDialog.css';

/** The one alert at a time (never window.alert): a modal card with role=alert, OK and an optional action. */
export function AlertDialog() {
  const alert = useAppSelector(selectAlert);
  // Keyed by notice so a replacing alert gets fresh focus handling.
  return alert ? <AlertCard key={alert.key} notice={alert} /> : null;
}

function AlertCard({ notice }: { notice: Notice }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const text = useNoticeText()(notice.message);
  const cardRef = useRef<HTMLDivElement>(null);
  const dismiss = () => dispatch(alertDismissed());
  useModalFocus(cardRef, { initialFocus: '.alert-card__primary', onEscape: dismiss });

  function runAction() {
    // play() must run inside the tap's own handler: browsers only lift the autoplay block for a user gesture.
    if (notice.action === 'tapToPlay') playAvatar();
    else if (notice.action === 'reload') window.location.reload();
    dispatch(alertActionTaken());
  }

  const actionLabel =
    notice.action === 'tapToPlay' ? noticeUiMessages.tapToPlay : notice.action === 'reload' ? noticeUiMessages.reload : null;

  return (
    <div className="modal-layer modal-layer--center">
      <div className="modal-layer__backdrop" aria-hidden="true" />
      <div ref={cardRef} className="alert-card" role="alert" tabIndex={-1}>
        <p className="alert-card__text">{text}</p>
        <div className={actionLabel ? 'alert-card__actions alert-card__actions--two' : 'alert-card__actions'}>
          <button type="button" className={actionLabel ? 'btn btn--quiet' : 'btn btn--primary alert-card__primary'} onClick={dismiss}>
            {intl.formatMessage(noticeUiMessages.ok)}
          </button>
          {actionLabel && (
            <button type="button" className="btn btn--primary alert-card__primary" onClick={runAction}>
              {intl.formatMessage(actionLabel)}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
