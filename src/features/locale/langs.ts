/**
 * The five languages and how the first one is chosen. No Redux here: the first module
 * (src/early.ts) uses it before the libraries have loaded.
 */
import { STORAGE_KEYS } from '../../services/storage.ts';

export const LANGS = ['zh', 'cht', 'en', 'jp', 'kor'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** BCP 47 tags for Intl/react-intl; recognition locales are the voice feature's own table. */
export const INTL_LOCALE: Record<Lang, string> = { zh: 'zh-CN', cht: 'zh-TW', en: 'en', jp: 'ja', kor: 'ko' };

/** The best of the visitor's languages among the five, or null. */
export function langFromTag(tag: string): Lang | null {
  const t = tag.toLowerCase();
  if (/^zh(-|$)/.test(t)) return /-(tw|hk|mo)\b|-hant\b/.test(t) ? 'cht' : 'zh';
  if (/^ja(-|$)/.test(t)) return 'jp';
  if (/^ko(-|$)/.test(t)) return 'kor';
  if (/^en(-|$)/.test(t)) return 'en';
  return null;
}

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
