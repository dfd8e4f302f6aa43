/**
 * The stand-in's languages: the product's list (lang/languages.ts, which the client reads too),
 * and the one limit the stand-in has there. Its knowledge base and its accounts are written in
 * English and simplified Chinese, so it answers `zh` in simplified Chinese, `cht` in
 * traditional (converted by OpenCC) and every other language (en, jp, kor) in English
 * (server/README.md). A real service replies in the language asked for (PROTOCOL.md).
 */
import type { EntryLang } from './replies/knowledge.data.ts';

export { isLang, LANGUAGES, langFromTag, type Lang } from '../lang/languages.ts';

/** The languages the stand-in writes in: its knowledge base's two, and cht made from zh. */
export type AnswerLang = EntryLang | 'cht';

/** The language the stand-in answers a client language in; anything unknown is English. */
export function answerLang(lang: unknown): AnswerLang {
  return lang === 'zh' || lang === 'cht' ? lang : 'en';
}
