/**
 * Simplified ⇄ traditional Chinese with OpenCC's dictionaries (opencc-js), never a table
 * of our own: character-by-character tables get the one-to-many cases wrong (发 is 發 or
 * 髮, 面 is 面 or 麵), which OpenCC resolves by phrase. `cht` is the client's zh-TW, so
 * the Taiwan standard with its phrases (twp) is used.
 */
import * as OpenCC from 'opencc-js';

const toTw = OpenCC.Converter({ from: 'cn', to: 'twp' });
const toCn = OpenCC.Converter({ from: 'twp', to: 'cn' });

export function toTraditional(text: string): string {
  return toTw(text);
}

export function toSimplified(text: string): string {
  return toCn(text);
}
