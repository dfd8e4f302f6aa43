import { useId, useRef, useState, type FormEvent } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { useModalFocus } from '../../../app/useModalFocus.ts';
import { INTL_LOCALE, LANGS, langChosen, langPickerClosed, selectLang, selectLangPickerOpen, type Lang } from '../localeSlice.ts';
import { localeMessages } from '../messages.ts';
import { LANG_NAMES } from './langNames.ts';
import './LanguageDialog.css';

/** The language picker: a bottom sheet with one radio per language, OK and Cancel. */
export function LanguageDialog() {
  const open = useAppSelector(selectLangPickerOpen);
  // Mounting the body only while open resets the pending choice each time it opens.
  return open ? <LanguageSheet /> : null;
}

function LanguageSheet() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const current = useAppSelector(selectLang);
  const [choice, setChoice] = useState<Lang>(current);
  const titleId = useId();
  const sheetRef = useRef<HTMLDivElement>(null);
  const cancel = () => dispatch(langPickerClosed());
  useModalFocus(sheetRef, { initialFocus: 'input:checked', onEscape: cancel });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (choice === current) dispatch(langPickerClosed());
    else dispatch(langChosen(choice));
  }

  return (
    <div className="modal-layer">
      <div className="modal-layer__backdrop" onClick={cancel} aria-hidden="true" />
      <div ref={sheetRef} className="sheet" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <form onSubmit={submit}>
          <h2 id={titleId} className="sheet__title">
            {intl.formatMessage(localeMessages.language)}
          </h2>
          <div className="lang-options" role="radiogroup" aria-labelledby={titleId}>
            {LANGS.map((lang) => (
              <label key={lang} className="lang-option">
                <input
                  type="radio"
                  name="lang"
                  value={lang}
                  checked={choice === lang}
                  onChange={() => setChoice(lang)}
                />
                <span className="lang-option__name" lang={INTL_LOCALE[lang]}>
                  {LANG_NAMES[lang]}
                </span>
                <svg className="lang-option__check" viewBox="0 0 24 24" aria-hidden="true">
                  <path d="m5 12.5 4.5 4.5L19 7.5" fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
              </label>
            ))}
          </div>
          <div className="sheet__actions">
            <button type="button" className="btn btn--quiet" onClick={cancel}>
              {intl.formatMessage(localeMessages.cancel)}
            </button>
            <button type="submit" className="btn btn--primary">
              {intl.formatMessage(localeMessages.ok)}
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
