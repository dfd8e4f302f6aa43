/**
 * Whether words the recognizer heard are the avatar's own voice coming back through the
 * phone's speaker and microphone (what echo cancellation left over), judged by the words
 * themselves: a phrase most of whose words the avatar has just said, in that order, is
 * its echo.
 *
 * Used for phrases the recognizer finalised while voice detection heard no sentence (its
 * threshold is raised while the avatar speaks): such a phrase is either the visitor
 * talking over the avatar, which must be sent, or the avatar's echo, which must not.
 */

/** Han, kana: one word per character (no spaces between words). */
const SINGLE = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}`;
const WORD = new RegExp(String.raw`[${SINGLE}]|[^\s\p{P}\p{S}${SINGLE}]+`, 'gu');

/** A text's words, lower case, without punctuation; CJK characters one by one. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Share of a phrase's word pairs found, in the same order, in what the avatar said, from which the phrase counts as its echo. */
export const ECHO_WORD_SHARE = 0.6;

/** Each word with the next: the order the words came in. */
function pairsOf(words: readonly string[]): string[] {
  return words.slice(1).map((word, i) => `${words[i]!} ${word}`);
}

/**
 * Judged by word pairs, not single words: an echo repeats the avatar's words in the
 * avatar's order, while a visitor's question often reuses a few of its words ("where is
 * the nearest store" after "our nearest store is ...") in an order of its own. A
 * one-word phrase is echo when the avatar said that word.
 */
export function isEchoOf(phrase: string, avatarSaid: readonly string[]): boolean {
  const words = wordsOf(phrase);
  if (words.length === 0) return true; // nothing to send either way
  const said = avatarSaid.map(wordsOf);
  if (words.length === 1) return said.some((reply) => reply.includes(words[0]!));
  // Pairs within each reply: the end of one and the start of the next were never said together.
  const saidPairs = new Set(said.flatMap(pairsOf));
  const pairs = pairsOf(words);
  return pairs.filter((pair) => saidPairs.has(pair)).length / pairs.length >= ECHO_WORD_SHARE;
}
