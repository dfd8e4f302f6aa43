import { defineMessages } from 'react-intl';

/** The buttons of notices; the notice texts themselves are the catalogue in ../messages.ts. */
export const noticeUiMessages = defineMessages({
  ok: { id: 'notices.ok', defaultMessage: 'OK' },
  tapToPlay: { id: 'notices.tapToPlay', defaultMessage: 'Tap to play' },
  reload: { id: 'notices.reload', defaultMessage: 'Refresh' },
});
