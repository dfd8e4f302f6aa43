import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { repeatableMarked, resendOpened, resendRequested } from '../chatSlice.ts';
import { chatMessages } from '../messages.ts';
import { messageText, type ChatMessage } from '../model.ts';
import { selectLastVisitorKey, selectRepeatable, selectResendOpenFor } from '../selectors.ts';
import { AlertIcon, ResendIcon } from './icons.tsx';
import { useLongPress } from './useLongPress.ts';

/**
 * One of the visitor's messages. A tap opens Resend at its top; a long press on
 * the newest one marks it repeatable, and then a click sends it again.
 */
export function VisitorMessage({ message }: { message: ChatMessage }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const { key } = message;
  const open = useAppSelector((s) => selectResendOpenFor(s) === key);
  const repeatable = useAppSelector((s) => selectRepeatable(s) === key);
  const isLast = useAppSelector((s) => selectLastVisitorKey(s) === key);
  const press = useLongPress(() => {
    if (isLast) dispatch(repeatableMarked(key));
  });
  // Opened from the keyboard: focus goes to Resend, so Enter twice resends.
  const byKeyboard = useRef(false);
  const resendButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open && byKeyboard.current) resendButton.current?.focus();
    byKeyboard.current = false;
  }, [open]);

  const activate = () => {
    if (repeatable) dispatch(resendRequested(key));
    else dispatch(resendOpened(key));
  };
  const onClick = () => {
    // The finger that long-pressed lifts with a click: that is not a tap.
    if (!press.consumed()) activate();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    byKeyboard.current = true;
    activate();
  };
  const resend = intl.formatMessage(chatMessages.resend);

  return (
    <li className="msg msg--me">
      <div className="msg__anchor">
        {open && (
          <div className="resend-pop" data-resend-popover>
            <button ref={resendButton} type="button" className="resend-pop__btn" onClick={() => dispatch(resendRequested(key))}>
              <ResendIcon />
              {resend}
            </button>
          </div>
        )}
        {repeatable && (
          <span className="msg__repeat" title={resend}>
            <ResendIcon />
          </span>
        )}
        <div
          className={`bubble bubble--me${repeatable ? ' bubble--repeatable' : ''}${message.status === 'failed' ? ' bubble--failed' : ''}`}
          tabIndex={0}
          onClick={onClick}
          onKeyDown={onKeyDown}
          {...press.handlers}
        >
          <span className="visually-hidden">{intl.formatMessage(chatMessages.you)}</span>
          <p className="msg__text">{messageText(message)}</p>
        </div>
      </div>
      {message.status === 'failed' && (
        <p className="msg__failed">
          <AlertIcon />
          {intl.formatMessage(chatMessages.notSent)}
        </p>
      )}
    </li>
  );
}
