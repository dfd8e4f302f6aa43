import { ReactIntlErrorCode, type IntlConfig } from 'react-intl';
import { createLogger } from '../services/logger.ts';
import { byLang, type Lang } from '../features/locale/langs.ts';

/** One locale's messages, flat: message id → ICU message (the `formatjs extract --format simple` shape). */
export type Messages = Record<string, string>;

const log = createLogger('i18n');

/**
 * One dynamic import per language, lang/<code>.json for each code of the list, so the
 * bundler emits each JSON as its own small chunk and only the visitor's language is
 * downloaded. en is the source language: its texts are also the defaultMessages in the
 * code, so a key missing from a file still reads in English instead of as an id.
 */
const files = import.meta.glob<Messages>('../../lang/*.json', { import: 'default' });
const loaders = byLang((language) => files[`../../lang/${language.code}.json`]);

const cache = new Map<Lang, Promise<Messages>>();

/** The messages of `lang`, loaded once; a failed load is forgotten so the next attempt retries. */
export function loadMessages(lang: Lang): Promise<Messages> {
  let pending = cache.get(lang);
  if (!pending) {
    const loader = loaders[lang];
    // A language of the list without its file is caught by scripts/languages.test.ts; here it is a load that failed.
    pending = (loader ? loader() : Promise.reject(new Error(`no lang/${lang}.json`))).catch((error: unknown) => {
      cache.delete(lang);
      log.error('locale failed to load', { lang, error: String(error) });
      throw error;
    });
    cache.set(lang, pending);
  }
  return pending;
}

/** react-intl's errors go to our logger (never the console); a missing translation is only a debug note. */
export const reportIntlError: NonNullable<IntlConfig['onError']> = (error) => {
  if (error.code === ReactIntlErrorCode.MISSING_TRANSLATION) log.debug(error.message);
  else log.warn(error.message);
};
