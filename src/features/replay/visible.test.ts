import { describe, expect, it } from 'vitest';
import { visible, visibleDeep } from './visible.ts';

describe('visible', () => {
  it('writes terminal controls, C1 controls and direction characters as escapes', () => {
    expect(visible('\x1b]0;title\x07\x1b[2J\r\n\t\x7f')).toBe('\\x1b]0;title\\x07\\x1b[2J\\x0d\\x0a\\x09\\x7f');
    expect(visible('\x9b31m \x85')).toBe('\\x9b31m \\x85');
    expect(visible('a\u202eb\u202c\u2066c\u2069\u200f\u061c\u2028')).toBe('a\\u202eb\\u202c\\u2066c\\u2069\\u200f\\u061c\\u2028');
  });

  it('leaves text, other scripts and emoji (with their joiners) as they are, and is idempotent', () => {
    const text = 'Hello 你好 안녕 👩‍💻 \\x1b';
    expect(visible(text)).toBe(text);
    expect(visible(visible('\x1b[31m'))).toBe(visible('\x1b[31m'));
  });

  it('reaches every string of a parsed value, keys included, without touching prototypes', () => {
    const parsed = JSON.parse('{"a\\u001b":["\\u202e",{"__proto__":{"x":"\\u0007"}}],"n":1,"b":true,"z":null}') as unknown;
    const out = visibleDeep(parsed) as Record<string, unknown>;
    expect(out).toEqual({ 'a\\x1b': ['\\u202e', JSON.parse('{"__proto__":{"x":"\\\\x07"}}')], n: 1, b: true, z: null });
    expect(Object.getPrototypeOf((out['a\\x1b'] as unknown[])[1])).toBe(Object.prototype);
  });
});
