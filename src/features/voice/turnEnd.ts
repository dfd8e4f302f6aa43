/**
 * Whether a call's sentence has been said to its end (docs/decisions.md D8). Voice detection
 * ends a sentence after 768 ms of quiet, but people stop inside a question to think: "where
 * is the … nearest store". A sentence whose words stop on a word no question ends on (an
 * article, a preposition, a particle, a filler: lang/languages.ts `openEnds`) waits for the
 * visitor to go on (sentences.ts `resumeMs`); one that reads as finished goes at once, as
 * before. Plain and synchronous, like sentences.ts.
 */
import { LANGUAGES } from '../../../lang/languages.ts';

/** Punctuation the recognizer adds at a phrase's end ("Where is the?"), and spaces. */
const TRAILING = /[\s\p{P}]+$/u;
/** Where a spaced language's last word begins. */
const LAST_WORD = /[^\s\p{P}]+$/u;

/** The recognizer's words end on a word that leaves the sentence open. */
export function leftOpen(phrases: readonly string[], lang: string): boolean {
  const language = LANGUAGES.find((l) => l.code === lang);
  const text = phrases.join(' ').replace(TRAILING, '').toLowerCase();
  if (!language || text === '') return false;
  const ends: readonly string[] = language.openEnds;
  if (language.unspaced) return ends.some((end) => text.endsWith(end));
  const last = LAST_WORD.exec(text)?.[0] ?? '';
  return ends.includes(last) || (language.particlesAttach && ends.some((end) => last.length > end.length && last.endsWith(end)));
}

/**
 * A phrase that left the sentence open loses the punctuation the recognizer closed it with,
 * and the phrase that goes on from it its capital ("Where is the?" + "Nearest store." reads
 * "Where is the nearest store."). "I" keeps its capital.
 */
export function continued(phrases: readonly string[], lang: string): string[] {
  return phrases.map((phrase, i) => {
    let text = phrase.trim();
    if (i + 1 < phrases.length && leftOpen([text], lang)) text = text.replace(TRAILING, '');
    if (i > 0 && leftOpen([phrases[i - 1]!], lang) && !/^I\b/.test(text)) text = text.charAt(0).toLocaleLowerCase() + text.slice(1);
    return text;
  });
}
