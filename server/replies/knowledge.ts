/**
 * The demo's retail-assistant knowledge base. The entries themselves live in
 * knowledge.data.ts; this module is the one place that reads them, so the
 * signaling replies and the speech grammar agree on the questions.
 */
import { ENTRIES, FALLBACK, GREETING_ID, type AnswerPart, type EntryLang, type KnowledgeEntry } from './knowledge.data.ts';
import { answerLang, type AnswerLang } from '../languages.ts';
import { toSimplified } from './traditional.ts';

/** The language a reply is given in: the entries' two, and cht made from zh (../languages.ts). */
export type KbLang = AnswerLang;

/** Every question the demo recognizes and answers, in one language. */
export function questions(lang: EntryLang): string[] {
  return ENTRIES.flatMap((entry) => entry.questions[lang]);
}

/** zh and cht are answered from the Chinese entries (cht in traditional characters), every other language from the English ones. */
export function kbLang(clientLang: unknown): KbLang {
  return answerLang(clientLang);
}

/** Lower case, punctuation and symbols removed, whitespace collapsed. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const HAN = /\p{Script=Han}/u;

/** How many of an entry's keywords the text contains: whole words in English, substrings in Chinese. */
function keywordScore(entry: KnowledgeEntry, words: Set<string>, compact: string): number {
  let score = 0;
  for (const keyword of entry.keywords.en) if (words.has(keyword)) score += 1;
  for (const keyword of entry.keywords.zh) if (compact.includes(keyword)) score += 1;
  return score;
}

/**
 * How much of a visitor's text is matched against the knowledge base. Every question of the
 * knowledge base is a short sentence, so nothing beyond this could match it; and the work per
 * frame (OpenCC's conversion, Unicode normalisation, the keyword scan) must not grow with the
 * 100,000 characters a frame may carry.
 */
export const MAX_MATCHED_CHARS = 500;

export interface Match {
  entry: KnowledgeEntry;
  how: 'exact' | 'keywords' | 'fallback';
}

/**
 * Exact question match first (in either language, so a Chinese session that
 * types an English question still gets an answer), then the entry sharing the
 * most keywords, else the polite fallback.
 */
export function findEntry(fullText: string): Match {
  const text = fullText.slice(0, MAX_MATCHED_CHARS);
  // The entries are simplified; a cht visitor types (and taps suggestions) in traditional.
  const norm = normalize(HAN.test(text) ? toSimplified(text) : text);
  // Chinese is written without spaces; compare it without them.
  const compact = HAN.test(norm) ? norm.replace(/ /g, '') : norm;
  for (const entry of ENTRIES) {
    const all = [...entry.questions.en, ...entry.questions.zh].map(normalize);
    if (all.some((q) => q === norm || (HAN.test(q) && q.replace(/ /g, '') === compact))) return { entry, how: 'exact' };
  }
  const words = new Set(norm.split(' '));
  let best: KnowledgeEntry | null = null;
  let bestScore = 0;
  for (const entry of ENTRIES) {
    const score = keywordScore(entry, words, compact);
    if (score > bestScore) {
      best = entry;
      bestScore = score;
    }
  }
  return best ? { entry: best, how: 'keywords' } : { entry: FALLBACK, how: 'fallback' };
}

export function greetingEntry(): KnowledgeEntry {
  const entry = ENTRIES.find((e) => e.id === GREETING_ID);
  if (!entry) throw new Error('the knowledge base has no greeting entry');
  return entry;
}

export type { AnswerPart, KnowledgeEntry };
