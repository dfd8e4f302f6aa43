/**
 * A session log comes from whoever sent it, and support reads it in a terminal
 * (`npm run replay`) or in the viewer at /25d/replay. Its strings may carry
 * characters that act instead of showing: terminal control sequences (ESC [ …,
 * an OSC window title or clipboard write, a clear screen), a CR or a newline
 * that fakes a line of the timeline, C1 controls (\x9b is a one-byte ESC [), or
 * bidi overrides that make a line read otherwise than it is (U+202E). Every
 * string of a log is shown through `visible`, which writes each such character
 * as an escape a person can read: `\x1b`, `\x9b`, `\u202e`.
 *
 * A backslash is left as it is, so `visible` can be applied twice (the parsed
 * log, then each printed line) without changing what it shows; a log that holds
 * the text `\x1b` reads like one that held ESC, and neither acts.
 */

/**
 * C0 controls (tab and newline included: a timeline line is one line), DEL, C1
 * controls, and the characters that change the direction of text or break a
 * line outside the C0 set: ALM, LRM, RLM, LRE…RLO, LRI…PDI, and the line and
 * paragraph separators. Zero-width joiners stay: emoji need them.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ACTING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control or direction character written as a visible escape. */
export function visible(text: string): string {
  return text.replace(ACTING, escape);
}

/**
 * A parsed JSON value with `visible` applied to every string in it, object keys
 * included (a timeline prints JSON, and JSON.stringify escapes C0 controls only).
 */
export function visibleDeep(value: unknown): unknown {
  if (typeof value === 'string') return visible(value);
  if (Array.isArray(value)) return value.map(visibleDeep);
  if (typeof value === 'object' && value !== null) {
    // fromEntries defines own properties: a "__proto__" key stays a key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [visible(key), visibleDeep(item)]));
  }
  return value;
}
