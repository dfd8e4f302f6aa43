import type { ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { HangUpIcon } from '../../../app/icons.tsx';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import { DigitalHostBadge } from '../../account/components/SpecialAccountNotes.tsx';
import { useIsSpecialAccount } from '../../account/components/useIsSpecialAccount.ts';
import { endRequested, selectSessionStatus } from '../sessionSlice.ts';
import { sessionMessages } from '../messages.ts';
import { AvatarVideo } from './AvatarVideo.tsx';
import { Background } from './Background.tsx';
import { Header } from './Header.tsx';
import { ReconnectingHint } from './ReconnectingHint.tsx';
import './LiveScreen.css';

export interface LiveSlots {
  /** The chat log (role log, name "Chat log"); it scrolls inside its slot. */
  chatLog?: ReactNode;
  /** The input bar: keyboard/voice toggle, centre area, call button. */
  inputBar?: ReactNode;
  /** Floating extras over the video, e.g. the network stats panel. */
  overlay?: ReactNode;
}

interface LiveScreenProps extends LiveSlots {
  /**
   * Mounted but covered while connecting, so the <video> exists when the stream
   * arrives and can report canplay; inert and hidden from assistive technology then.
   */
  covered?: boolean;
}

/** Home screen, state 2: the avatar full screen over its background, the header, and the bottom slots. */
export function LiveScreen({ chatLog, inputBar, overlay, covered = false }: LiveScreenProps) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const status = useAppSelector(selectSessionStatus);
  const info = useAppSelector(selectAccountInfo);
  const special = useIsSpecialAccount();

  const identity = (
    <div className="live__identity">
      {info?.photoUrl && <img className="live__photo" src={info.photoUrl} alt="" decoding="async" />}
      <div className="live__names">
        <span className="live__title">{info?.title || intl.formatMessage(sessionMessages.defaultTitle)}</span>
        {special && <DigitalHostBadge />}
      </div>
    </div>
  );

  const endChat = (
    <button
      type="button"
      className="btn btn--danger live__end"
      disabled={status !== 'live'}
      onClick={() => dispatch(endRequested())}
    >
      <HangUpIcon />
      {intl.formatMessage(sessionMessages.endChat)}
    </button>
  );

  return (
    <section className={covered ? 'live live--covered' : 'live'} aria-hidden={covered || undefined} inert={covered}>
      <Background />
      <AvatarVideo />
      <ReconnectingHint />
      <div className="live__top">
        <Header start={identity} actions={endChat} compactLanguage />
      </div>
      {overlay}
      <div className="live__bottom">
        <div className="live__log-slot">{chatLog}</div>
        <div className="live__input-slot">{inputBar}</div>
      </div>
    </section>
  );
}
