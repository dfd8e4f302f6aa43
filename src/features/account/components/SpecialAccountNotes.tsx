import { useIntl } from 'react-intl';
import { accountMessages } from '../messages.ts';
import './SpecialAccountNotes.css';

/** The digital-host label shown next to the special account's avatar. */
export function DigitalHostBadge() {
  const intl = useIntl();
  return (
    <span className="host-badge">
      <svg viewBox="0 0 24 24" aria-hidden="true">
        <path
          d="M12 2.8 14.2 8l5.6.5-4.3 3.7 1.3 5.5L12 14.8l-4.8 2.9 1.3-5.5L4.2 8.5 9.8 8Z"
          fill="currentColor"
        />
      </svg>
      {intl.formatMessage(accountMessages.digitalHost)}
    </span>
  );
}

/** The special account's tip: the content is AI-summarised from public government information. */
export function AiSummaryTip() {
  const intl = useIntl();
  return (
    <p className="ai-summary-tip">
      <svg viewBox="0 0 24 24" aria-hidden="true">
        <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeWidth="1.8" />
        <path d="M12 10.5v6M12 7.2v.1" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
      </svg>
      <span>{intl.formatMessage(accountMessages.aiSummaryTip)}</span>
    </p>
  );
}
