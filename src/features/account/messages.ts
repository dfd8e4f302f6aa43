import { defineMessages } from 'react-intl';

/** Texts about the account the visitor opened: its photo and the special account's notices. */
export const accountMessages = defineMessages({
  photoAlt: { id: 'account.photoAlt', defaultMessage: 'Photo of the assistant' },
  aiSummaryTip: {
    id: 'account.aiSummaryTip',
    defaultMessage: 'Content is AI-summarised from public government information',
  },
  digitalHost: { id: 'account.digitalHost', defaultMessage: 'Digital host' },
  unreachable: {
    id: 'account.unreachable',
    defaultMessage: 'The service cannot be reached right now. Check your connection and try again.',
  },
  retry: { id: 'account.retry', defaultMessage: 'Retry' },
});
