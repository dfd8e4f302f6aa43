import { defineMessages } from 'react-intl';

/** Texts of the language picker. The language names themselves are endonyms (see LANG_NAMES). */
export const localeMessages = defineMessages({
  language: { id: 'locale.language', defaultMessage: 'Language' },
  ok: { id: 'locale.ok', defaultMessage: 'OK' },
  cancel: { id: 'locale.cancel', defaultMessage: 'Cancel' },
});
