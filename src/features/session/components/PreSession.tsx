import { useId, useLayoutEffect, useRef } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { dismissShell } from '../../../app/shell.ts';
import { unlockAvatarAudio } from '../../../services/avatarAudio.ts';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import { AvatarPhoto } from '../../account/components/AvatarPhoto.tsx';
import { AiSummaryTip, DigitalHostBadge } from '../../account/components/SpecialAccountNotes.tsx';
import { useIsSpecialAccount } from '../../account/components/useIsSpecialAccount.ts';
import { accountMessages } from '../../account/messages.ts';
import { cancelRequested, selectConnectPhase, selectSessionStatus, startRequested } from '../sessionSlice.ts';
import { sessionMessages } from '../messages.ts';
import { ConnectingHint } from './ConnectingHint.tsx';
import { Header } from './Header.tsx';
import './PreSession.css';

/**
 * A press on Cancel this soon after Start chat is the second tap of a double tap (the
 * button changed under the finger): it counts as pressing start again, which only
 * says "please wait" (docs/requirements.md R44), instead of cancelling what was just started.
 * The spec's press debounce (300 ms) is the window.
 */
export const DOUBLE_TAP_MS = 300;

/**
 * Home screen, state 1: the avatar's photo, title and optional label, and the
 * one action. While connecting, the action becomes Cancel and a hint shows how
 * far the start has got. It is also shown, disabled, while a session ends.
 */
export function PreSession() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const status = useAppSelector(selectSessionStatus);
  const phase = useAppSelector(selectConnectPhase);
  const info = useAppSelector(selectAccountInfo);
  const special = useIsSpecialAccount();
  const titleId = useId();
  const connecting = status === 'connecting';
  // The special account's own label often just says "digital host": the localized badge already does.
  const hostText = [accountMessages.digitalHost.defaultMessage, intl.formatMessage(accountMessages.digitalHost)];
  const label = info?.label && !(special && hostText.some((t) => t.toLowerCase() === info.label?.trim().toLowerCase())) ? info.label : null;
  const ending = status === 'ending';
  const startedAt = useRef(-Infinity);
  const start = () => {
    startedAt.current = performance.now();
    // Inside the tap: the avatar's voice arrives seconds later, when iOS no longer counts it as the visitor's gesture.
    unlockAvatarAudio();
    dispatch(startRequested());
  };
  // The static shell stays over this screen until its photo can paint (AccessGate); a tap on
  // Start chat (it reaches this screen through the shell) shows its answer at once.
  useLayoutEffect(() => {
    if (status !== 'idle') dismissShell();
  }, [status]);
  const cancel = () => dispatch(performance.now() - startedAt.current < DOUBLE_TAP_MS ? startRequested() : cancelRequested());

  return (
    <section className={connecting ? 'presession presession--connecting' : 'presession'} aria-labelledby={titleId}>
      <div className="presession__backdrop" aria-hidden="true">
        {info?.background?.kind === 'image' && <img src={info.background.url} alt="" decoding="async" />}
      </div>
      <Header />
      <div className="presession__hero">
        <AvatarPhoto url={info?.photoUrl} busy={connecting} onShown={dismissShell} />
        <div className="presession__identity">
          <h1 id={titleId} className="presession__title">
            {info?.title || intl.formatMessage(sessionMessages.defaultTitle)}
          </h1>
          {(label || special) && (
            <div className="presession__badges">
              {label && <span className="presession__label">{label}</span>}
              {special && <DigitalHostBadge />}
            </div>
          )}
        </div>
        <p className="presession__tagline">{intl.formatMessage(sessionMessages.chatWithIt)}</p>
      </div>
      <div className="presession__footer">
        {/* Space is kept for the hint even when idle, so the photo doesn't jump when it appears. */}
        <div className="presession__status">
          {connecting && <ConnectingHint phase={phase} />}
          {ending && <p className="presession__ending">{intl.formatMessage(sessionMessages.ending)}</p>}
        </div>
        {connecting ? (
          <button type="button" className="btn btn--glass btn--block presession__action" onClick={cancel}>
            {intl.formatMessage(sessionMessages.cancel)}
          </button>
        ) : (
          <button
            type="button"
            className="btn btn--primary btn--block presession__action"
            disabled={ending}
            onClick={start}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true">
              <path d="M12 3C7 3 3 6.6 3 11c0 2.4 1.2 4.6 3.1 6.1L5.5 21l4-2.2c.8.2 1.6.3 2.5.3 5 0 9-3.6 9-8s-4-8-9-8Z" fill="currentColor" />
            </svg>
            {intl.formatMessage(sessionMessages.startChat)}
          </button>
        )}
        {special && <AiSummaryTip />}
      </div>
    </section>
  );
}
