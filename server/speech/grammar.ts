/**
 * JSGF grammars made from the knowledge-base questions, so pocketsphinx can only answer
 * with one of them (exact words) or nothing. A second grammar accepts every prefix of a
 * question, which is what partial decoding of an utterance in progress needs. A third
 * accepts a question's beginnings and ends: a visitor who stops inside a question ("where
 * is the … nearest store") is two utterances to the service, each a fragment of it, and a
 * real service hears both word for word. Grammar
 * decodes load a dictionary cut down to the grammar's words: reading the whole 3 MB CMU
 * dictionary was most of every decode's cost.
 */

/** Lower-case words as the CMU dictionary spells them; punctuation other than apostrophes goes. */
export function toWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z'\s]/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w.length > 0);
}

/** The words a CMU-style dictionary defines, alternates such as "products(2)" folded in. */
export function dictionaryWords(dict: string): Set<string> {
  const words = new Set<string>();
  for (const line of dict.split('\n')) {
    const head = line.split(/\s/, 1)[0];
    if (head) words.add(head.replace(/\(\d+\)$/, '').toLowerCase());
  }
  return words;
}

/** The entries (alternate pronunciations included) of `words`, from a CMU-style dictionary. */
export function dictionarySubset(dict: string, words: Iterable<string>): string {
  const wanted = new Set(words);
  const lines = dict.split('\n').filter((line) => {
    const head = line.split(/\s/, 1)[0];
    return head !== undefined && head !== '' && wanted.has(head.replace(/\(\d+\)$/, '').toLowerCase());
  });
  return lines.join('\n') + '\n';
}

export interface GrammarSet {
  /** Each accepted question as its word list, in the order given, without duplicates. */
  questions: string[][];
  /** Questions left out, with the words the dictionary lacks. */
  rejected: { question: string; missing: string[] }[];
  full: string;
  prefix: string;
  /** Every proper prefix and proper suffix of a question. */
  fragment: string;
}

function jsgf(name: string, alternatives: string[]): string {
  return `#JSGF V1.0;\ngrammar ${name};\npublic <${name}> = ${alternatives.join(' | ')};\n`;
}

/** "a b c" becomes "a [ b [ c ] ]": every non-empty prefix of the question. */
function prefixes(words: string[]): string {
  const [head, ...rest] = words;
  if (head === undefined) return '';
  return rest.length === 0 ? head : `${head} [ ${prefixes(rest)} ]`;
}

/**
 * "a b c" gives "a", "a b", "b c" and "c": the beginnings a visitor can stop after and the ends
 * they can finish with. Spelled out one by one: pocketsphinx searched the nested optional form
 * of the prefix grammar badly for a whole utterance ("what are your" came out "where").
 */
function fragments(words: string[]): string[] {
  const heads = words.slice(0, -1).map((_w, i) => words.slice(0, i + 1).join(' '));
  const tails = words.slice(1).map((_w, i) => words.slice(i + 1).join(' '));
  return [...heads, ...tails];
}

/** Null when no question survives: then there is nothing for the grammar pass to do. */
export function buildGrammars(questions: string[], known: Set<string>): GrammarSet | null {
  const seen = new Set<string>();
  const accepted: string[][] = [];
  const rejected: GrammarSet['rejected'] = [];
  for (const question of questions) {
    const words = toWords(question);
    const key = words.join(' ');
    if (words.length === 0 || seen.has(key)) continue;
    seen.add(key);
    const missing = words.filter((w) => !known.has(w));
    if (missing.length > 0) rejected.push({ question, missing });
    else accepted.push(words);
  }
  if (accepted.length === 0) return null;
  return {
    questions: accepted,
    rejected,
    full: jsgf('question', accepted.map((w) => w.join(' '))),
    prefix: jsgf('prefix', accepted.map(prefixes)),
    fragment: jsgf('fragment', [...new Set(accepted.flatMap(fragments))]),
  };
}

const QUESTION_START = /^(what|where|when|who|whom|whose|why|how|which|is|are|am|was|were|can|could|do|does|did|will|would|shall|should|may|might|have|has|had)\b/;

/**
 * The text the real service would display: first letter capitalised and an end mark,
 * "?" for a question, "." otherwise. The words themselves stay exactly as recognised.
 */
export function displayText(lexical: string): string {
  const text = lexical.trim();
  if (text === '') return '';
  const mark = QUESTION_START.test(text) ? '?' : '.';
  return text.charAt(0).toUpperCase() + text.slice(1) + mark;
}
