/**
 * Whether words the recognizer heard are the avatar's own voice coming back through the
 * phone's speaker and microphone (what echo cancellation left over), judged by the words
 * themselves: a phrase most of whose words the avatar has just said is its echo.
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

/** Share of a phrase's words found in what the avatar said, from which the phrase counts as its echo. */
export const ECHO_WORD_SHARE = 0.6;

export function isEchoOf(phrase: string, avatarSaid: readonly string[]): boolean {
  const words = wordsOf(phrase);
  if (words.length === 0) return true; // nothing to send either way
  const said = new Set(avatarSaid.flatMap(wordsOf));
  const shared = words.filter((w) => said.has(w)).length;
  return shared / words.length >= ECHO_WORD_SHARE;
}
