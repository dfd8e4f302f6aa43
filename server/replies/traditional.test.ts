import { describe, expect, it } from 'vitest';
import { ENTRIES, FALLBACK } from './knowledge.data.ts';
import { findEntry, greetingEntry, kbLang } from './knowledge.ts';
import { entryReply, type ReplyPart } from './reply.ts';
import { toSimplified, toTraditional } from './traditional.ts';

const ORIGIN = 'http://127.0.0.1:8080';

/** The words of a reply: its texts and suggested questions. */
function words(parts: ReplyPart[]): string[] {
  return parts.flatMap((p) => ('text' in p ? [p.text] : 'related_qa' in p ? p.related_qa : []));
}

describe('replies in cht', () => {
  it('answers the store question in traditional characters', () => {
    const reply = words(entryReply(findEntry('最近的门店在哪里').entry, kbLang('cht'), ORIGIN)).join('');
    expect(reply).toContain('門');
    expect(reply).not.toMatch(/[门们这说时间优惠]/u);
  });

  it('leaves nothing that OpenCC would still turn into traditional, in any entry', () => {
    for (const entry of [...ENTRIES, FALLBACK, greetingEntry()]) {
      const cht = words(entryReply(entry, 'cht', ORIGIN));
      const zh = words(entryReply(entry, 'zh', ORIGIN));
      expect(cht, entry.id).toEqual(cht.map(toTraditional));
      // Same sentences, other script: back to simplified they are the zh reply.
      expect(cht.map(toSimplified), entry.id).toEqual(zh);
      expect(cht, entry.id).not.toEqual(zh);
    }
  });

  it('keeps zh in simplified characters and the media parts as they are', () => {
    const entry = findEntry('show me the new products').entry;
    const zh = entryReply(entry, kbLang('zh'), ORIGIN);
    expect(words(zh)).toEqual(words(zh).map(toSimplified));
    const media = (parts: ReplyPart[]) => parts.filter((p) => !('text' in p) && !('related_qa' in p));
    expect(media(entryReply(entry, 'cht', ORIGIN))).toEqual(media(zh));
  });
});
