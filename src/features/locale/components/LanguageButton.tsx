import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { langPickerOpened, selectLang } from '../localeSlice.ts';
import { localeMessages } from '../messages.ts';
import { LANG_MARKS } from './langNames.ts';
import './LanguageButton.css';

/**
 * The header's Language button: a globe and the current language's mark; opens the picker.
 * `compact` shows the globe only, where the header is crowded (the live screen).
 */
export function LanguageButton({ compact = false }: { compact?: boolean }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const lang = useAppSelector(selectLang);
  return (
    <button
      type="button"
      className={compact ? 'btn btn--glass btn--icon' : 'btn btn--glass lang-button'}
      aria-label={intl.formatMessage(localeMessages.language)}
      aria-haspopup="dialog"
      onClick={() => dispatch(langPickerOpened())}
    >
      <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
        <circle cx="12" cy="12" r="9" />
        <path d="M3 12h18M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9c-2.5-2.6-3.8-5.6-3.8-9S9.5 5.6 12 3Z" />
      </svg>
      {!compact && (
        <span className="lang-button__mark" aria-hidden="true">
          {LANG_MARKS[lang]}
        </span>
      )}
    </button>
  );
}
