import type { Lang } from '../localeSlice.ts';

/**
 * Each language is named in its own script, in every locale: a visitor who
 * can't read the current language must still find theirs. These are endonyms,
 * not translatable texts, so they are constants rather than messages.
 */
export const LANG_NAMES: Record<Lang, string> = {
  zh: '简体中文',
  cht: '繁體中文',
  en: 'English',
  jp: '日本語',
  kor: '한국어',
};

/** The short mark shown on the header's Language button. */
export const LANG_MARKS: Record<Lang, string> = { zh: '简', cht: '繁', en: 'EN', jp: '日', kor: '한' };

