/**
 * The demo's retail-assistant knowledge base. The entries themselves live in
 * knowledge.data.ts; this module is the one place that reads them, so the
 * signaling replies and the speech grammar agree on the questions.
 */
import { ENTRIES, type KnowledgeEntry } from './knowledge.data.ts';

export type KbLang = 'en' | 'zh';

/** Every question the demo recognizes and answers, in one language. */
export function questions(lang: KbLang): string[] {
  return ENTRIES.flatMap((entry) => entry.questions[lang]);
}

export type { KnowledgeEntry };
