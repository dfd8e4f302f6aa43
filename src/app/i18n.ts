import { ReactIntlErrorCode, type IntlConfig } from 'react-intl';
import { createLogger } from '../services/logger.ts';
import type { Lang } from '../features/locale/localeSlice.ts';

/** One locale's messages, flat: message id → ICU message (the `formatjs extract --format simple` shape). */
export type Messages = Record<string, string>;

const log = createLogger('i18n');

/**
 * One dynamic import per language, written out so the bundler emits each JSON
 * as its own small chunk and only the visitor's language is downloaded. en is
 * the source language: its texts are also the defaultMessages in the code, so
 * a key missing from a file still reads in English instead of as an id.
 */
const loaders: Record<Lang, () => Promise<{ default: Messages }>> = {
  zh: () => import('../../lang/zh.json'),
  cht: () => import('../../lang/cht.json'),
  en: () => import('../../lang/en.json'),
  jp: () => import('../../lang/jp.json'),
  kor: () => import('../../lang/kor.json'),
};

const cache = new Map<Lang, Promise<Messages>>();

/** The messages of `lang`, loaded once; a failed load is forgotten so the next attempt retries. */
export function loadMessages(lang: Lang): Promise<Messages> {
  let pending = cache.get(lang);
  if (!pending) {
    pending = loaders[lang]().then(
      (module) => module.default,
      (error: unknown) => {
        cache.delete(lang);
        log.error('locale failed to load', { lang, error: String(error) });
        throw error;
      },
    );
    cache.set(lang, pending);
  }
  return pending;
}

/** react-intl's errors go to our logger (never the console); a missing translation is only a debug note. */
export const reportIntlError: NonNullable<IntlConfig['onError']> = (error) => {
  if (error.code === ReactIntlErrorCode.MISSING_TRANSLATION) log.debug(error.message);
  else log.warn(error.message);
};
