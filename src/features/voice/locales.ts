import { byLang, type Lang } from '../../../lang/languages.ts';

/**
 * Speech-recognition locale per interface language (docs/requirements.md R116), from the list
 * of languages. These are the recognizer's locales, not the Intl tags of react-intl: `jp` and
 * `kor` are the app's own language codes and must never reach the Speech SDK as they are.
 */
export const RECOGNITION_LOCALE = byLang((language) => language.recognition);

/** The spec marks zh-TW as the default recognition locale. */
export const DEFAULT_RECOGNITION_LOCALE = 'zh-TW';

/**
 * Maps any language value to a recognition locale. Unknown input (a stale value from
 * storage, a server string) falls back to the default instead of failing the call.
 */
export function recognitionLocaleFor(lang: string | null | undefined): string {
  if (lang && Object.prototype.hasOwnProperty.call(RECOGNITION_LOCALE, lang)) {
    return RECOGNITION_LOCALE[lang as Lang];
  }
  return DEFAULT_RECOGNITION_LOCALE;
}
