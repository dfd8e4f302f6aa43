import { byLang } from '../langs.ts';

/**
 * Each language is named in its own script, in every locale: a visitor who
 * can't read the current language must still find theirs. These are endonyms,
 * not translatable texts, so they come from the list of languages rather than
 * from messages.
 */
export const LANG_NAMES = byLang((language) => language.name);

/** The short mark shown on the header's Language button. */
export const LANG_MARKS = byLang((language) => language.mark);
