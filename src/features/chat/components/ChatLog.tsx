import { useEffect } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { resendClosed } from '../chatSlice.ts';
import { chatMessages } from '../messages.ts';
import { selectMessageByKey, selectMessageKeys, selectNewestKey, selectResendOpenFor } from '../selectors.ts';
import { ChevronDownIcon } from './icons.tsx';
import { MessageRow } from './MessageRow.tsx';
import { useStickToBottom } from './useStickToBottom.ts';
import './ChatLog.css';
import './parts.css';

/**
 * The conversation (role log, "Chat log"): the visitor on the right, the
 * assistant on the left, newest at the bottom. It follows new messages while
 * the visitor is at the bottom and offers Back to bottom when they scrolled up.
 */
export function ChatLog() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const keys = useAppSelector(selectMessageKeys);
  const newestKey = useAppSelector(selectNewestKey);
  const newestFromMe = useAppSelector((s) => (newestKey === null ? false : (selectMessageByKey(s, newestKey)?.fromMe ?? false)));
  const resendOpen = useAppSelector(selectResendOpenFor) !== null;
  const { scrollerRef, contentRef, sentinelRef, atBottom, scrollToBottom } = useStickToBottom(newestKey, newestFromMe);

  // Resend closes on a tap anywhere but on itself (capture: before the tapped control reacts).
  useEffect(() => {
    if (!resendOpen) return;
    const onPointerDown = (event: PointerEvent) => {
      if (event.target instanceof Element && event.target.closest('[data-resend-popover]')) return;
      dispatch(resendClosed());
    };
    document.addEventListener('pointerdown', onPointerDown, true);
    return () => document.removeEventListener('pointerdown', onPointerDown, true);
  }, [resendOpen, dispatch]);

  return (
    <div className={`chat${keys.length === 0 ? ' chat--empty' : ''}`}>
      <div ref={scrollerRef} className="chat__scroller" role="log" aria-label={intl.formatMessage(chatMessages.log)} tabIndex={0}>
        <ol ref={contentRef} className="chat__list">
          {keys.map((key) => (
            <MessageRow key={key} messageKey={key} />
          ))}
        </ol>
        <div ref={sentinelRef} className="chat__sentinel" aria-hidden="true" />
      </div>
      {!atBottom && (
        <button
          type="button"
          className="chat__to-bottom"
          onClick={scrollToBottom}
          aria-label={intl.formatMessage(chatMessages.backToBottom)}
        >
          <ChevronDownIcon />
        </button>
      )}
    </div>
  );
}
