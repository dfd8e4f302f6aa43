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

/**
 * How long after the avatar stopped its echo can still reach the recognizer as a phrase:
 * the recognizer ends a phrase after its segmentation silence (1 s in a call) plus the
 * service's latency (docs/decisions.md D2).
 */
export const ECHO_TAIL_MS = 2500;

/** What the call knows of the avatar's voice when it judges a phrase. */
export interface AvatarVoice {
  /** Speaking at the last look, and when it last was (0: never). */
  readonly speaking: boolean;
  readonly spokeAt: number;
  /** Whether the echo gate has the avatar's audio to compare the microphone with. */
  readonly gated: boolean;
}

/** Whether the avatar's echo may still be coming at `at`: it speaks, or stopped less than ECHO_TAIL_MS before. */
export function echoMayCome(avatar: AvatarVoice, at: number): boolean {
  return avatar.speaking || at - avatar.spokeAt < ECHO_TAIL_MS;
}

/**
 * Why a phrase the recognizer heard with no sentence of voice detection around it is the
 * avatar's echo, or null when it is the visitor's (docs/decisions.md D2, D4, D5). It is
 * judged in two situations, by one rule and one window (ECHO_TAIL_MS after the avatar
 * stopped, from `heardAt`):
 * - `stray`: voice detection was listening and heard no sentence. With the echo gate on,
 *   anything within the window is echo (the gate passes the visitor's voice, so detection
 *   would have heard them); otherwise a phrase repeating the avatar's words is.
 * - `handOver`: the detector has not joined yet and the recognizer marks the sentences
 *   (D5); nothing heard this phrase but the recognizer, so within the window a phrase
 *   repeating the avatar's words is echo, and outside it the avatar is not talking.
 */
export function avatarEcho(
  situation: 'stray' | 'handOver',
  phrase: string,
  heardAt: number,
  avatar: AvatarVoice,
  avatarSaid: readonly string[],
): 'gate' | 'words' | null {
  const within = echoMayCome(avatar, heardAt);
  const listened = situation === 'stray';
  if (listened && avatar.gated && within) return 'gate';
  if ((listened || within) && isEchoOf(phrase, avatarSaid)) return 'words';
  return null;
}
