/**
 * The app's side of the languages: the list itself is lang/languages.ts (one place for the
 * app, the stand-in and the scripts), and how the first one is chosen. No Redux here: the
 * first module (src/early.ts) uses it before the libraries have loaded.
 */
import { byLang, isLang, langFromTag, type Lang } from '../../../lang/languages.ts';
import { STORAGE_KEYS } from '../../services/storage.ts';

export { byLang, isLang, LANGS, LANGUAGES, langFromTag, languageOf, type Lang, type Language } from '../../../lang/languages.ts';

/** BCP 47 tags for Intl/react-intl; recognition locales are the voice feature's own table. */
export const INTL_LOCALE = byLang((language) => language.intl);

/** A valid stored `lang` wins; else the first browser language we speak; else 'zh' (the spec's stored default). */
export function pickInitialLang(stored: string | null, languages: readonly string[]): Lang {
  if (isLang(stored)) return stored;
  for (const tag of languages) {
    const lang = langFromTag(tag);
    if (lang) return lang;
  }
  return 'zh';
}

/** The language stored by an earlier visit, or null (none, or storage refused). */
export function readStoredLang(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEYS.lang);
  } catch {
    return null;
  }
}
