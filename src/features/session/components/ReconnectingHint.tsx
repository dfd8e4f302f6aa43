import { useEffect } from 'react';
import { useIntl } from 'react-intl';
import { useAppSelector } from '../../../app/hooks.ts';
import { createLogger } from '../../../services/logger.ts';
import { selectReconnecting } from '../sessionSlice.ts';
import { sessionMessages } from '../messages.ts';
import './ReconnectingHint.css';

const log = createLogger('session-ui');

/**
 * Over the frozen avatar while the session reconnects (docs/requirements.md R117): the signaling
 * channel reconnecting or resuming, or the media dropped and the avatar not moving yet. The
 * polite live region is always there, so the text is announced when it appears; the session
 * log records when it showed and went.
 */
export function ReconnectingHint() {
  const intl = useIntl();
  const reconnecting = useAppSelector(selectReconnecting);
  useEffect(() => {
    if (!reconnecting) return;
    log.info('reconnect hint shown');
    return () => log.info('reconnect hint gone');
  }, [reconnecting]);
  return (
    <div className="reconnecting" aria-live="polite">
      {reconnecting && (
        <div className="reconnecting__card" role="status">
          <p className="reconnecting__title">
            <span className="reconnecting__spinner" aria-hidden="true" />
            {intl.formatMessage(sessionMessages.reconnecting)}
          </p>
          <p className="reconnecting__detail">{intl.formatMessage(sessionMessages.reconnectingDetail)}</p>
        </div>
      )}
    </div>
  );
}
