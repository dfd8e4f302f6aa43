import { describe, expect, it } from 'vitest';
import {
  cleanTakenText,
  DRAW_LIMITS,
  isHttpUrl,
  joinAllTexts,
  joinTexts,
  messageText,
  partsOfTts,
  showsThinkingDots,
  textPreview,
  toBlocks,
  type ChatPart,
} from './model.ts';

const text = (content: string): ChatPart => ({ type: 'text', content });
const image = (content: string): ChatPart => ({ type: 'image', content });

describe('isHttpUrl', () => {
  it.each([
    ['http://127.0.0.1/a.png', true],
    ['https://example.com/page?x=1', true],
    ['javascript:alert(1)', false],
    ['JAVASCRIPT:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['vbscript:msgbox', false],
    ['/relative/path.png', false],
    ['', false],
    [42, false],
  ])('%s → %s', (value, ok) => {
    expect(isHttpUrl(value)).toBe(ok);
  });
});

describe('partsOfTts', () => {
  it('turns one frame into parts in protocol order and drops what is not http(s)', () => {
    expect(
      partsOfTts({
        msg_type: 'tts',
        msg_id: 'r1',
        text: 'Hello',
        image_url: 'https://x/a.png',
        video_url: 'javascript:alert(1)',
        web_url: 'data:text/html,<b>x</b>',
        related_qa: ['  where  ', ' '],
      }),
    ).toEqual([
      { type: 'text', content: 'Hello' },
      { type: 'image', content: 'https://x/a.png' },
      { type: 'relatedQa', content: [{ content: 'where' }] },
    ]);
  });

  it('ignores whitespace-only text', () => {
    expect(partsOfTts({ msg_type: 'tts', msg_id: 'r1', text: '  \n ' })).toEqual([]);
  });
});

describe('toBlocks', () => {
  it('joins consecutive text parts with a space', () => {
    expect(toBlocks([text('Our store'), text('is open.'), text('Welcome!')])).toEqual([
      { kind: 'text', key: 't0', text: 'Our store is open. Welcome!' },
    ]);
  });

  it('collects every image of the message into one gallery at the first image, indexed from 1', () => {
    const blocks = toBlocks([text('Look'), image('http://a/1.png'), text('and'), image('http://a/2.png'), image('http://a/3.png')]);
    expect(blocks).toEqual([
      { kind: 'text', key: 't0', text: 'Look' },
      {
        kind: 'gallery',
        key: 'g1',
        images: [
          { url: 'http://a/1.png', index: 1 },
          { url: 'http://a/2.png', index: 2 },
          { url: 'http://a/3.png', index: 3 },
        ],
      },
      { kind: 'text', key: 't2', text: 'and' },
    ]);
  });

  it('keeps videos, web pages, suggestions and dividers in order, videos with their part index', () => {
    const blocks = toBlocks([
      { type: 'video', content: 'http://a/v.webm' },
      { type: 'divider', content: '' },
      { type: 'webPage', content: 'http://a/p.html' },
      { type: 'relatedQa', content: [{ content: 'q1' }, { content: 'q2' }] },
    ]);
    expect(blocks.map((b) => b.kind)).toEqual(['video', 'divider', 'webPage', 'related']);
    expect(blocks[0]).toMatchObject({ partIndex: 0 });
    expect(blocks[3]).toMatchObject({ questions: ['q1', 'q2'] });
  });

  it('draws 1,000 alternating parts as capped text blocks and one gallery of every image', () => {
    const parts = Array.from({ length: 1000 }, (_, i) => (i % 2 ? image(`http://a/${i}.png`) : text(`part ${i}`)));
    const blocks = toBlocks(parts);
    expect(blocks).toHaveLength(DRAW_LIMITS.blocks);
    const gallery = blocks.find((b) => b.kind === 'gallery');
    expect(gallery?.kind === 'gallery' && gallery.images.at(-1)?.index).toBe(500);
  });
});

describe('joining text parts', () => {
  it('puts a space between sentences, but not around Chinese or Japanese', () => {
    expect(joinTexts('Our store is open.', 'Come by!')).toBe('Our store is open. Come by!');
    expect(joinTexts('您好，我是艾娃。', '有什么可以帮您？')).toBe('您好，我是艾娃。有什么可以帮您？');
    expect(joinTexts('営業中です。', 'どうぞ')).toBe('営業中です。どうぞ');
    expect(joinTexts('안녕하세요.', '반갑습니다')).toBe('안녕하세요. 반갑습니다');
    expect(joinTexts('ends with a space ', 'next')).toBe('ends with a space next');
    expect(joinTexts('', 'first')).toBe('first');
  });
  it('joins many parts in one pass exactly as joining them two by two would', () => {
    const pieces = ['Hello.', '', 'ends in space ', 'next', '\tstarts with a tab', '您好。', 'word', 'どうぞ', '안녕', 'x'.repeat(100_000), 'last'];
    expect(joinAllTexts(pieces)).toBe(pieces.reduce(joinTexts, ''));
    expect(joinAllTexts([])).toBe('');
    expect(joinAllTexts(['', ''])).toBe('');
    // A 100,000-character first part followed by 999 short ones: every boundary is still right.
    const flood = [text('y'.repeat(100_000)), ...Array.from({ length: 999 }, (_, i) => text(`part ${i}`))];
    const [block] = toBlocks(flood);
    expect(block).toMatchObject({ kind: 'text' });
    const joined = block?.kind === 'text' ? block.text : '';
    expect(joined.startsWith(`${'y'.repeat(100_000)} part 0 part 1 `)).toBe(true);
    expect(joined.endsWith('part 997 part 998')).toBe(true);
    const shortParts = Array.from({ length: 999 }, (_, i) => `part ${i}`).join('').length;
    expect(joined).toHaveLength(100_000 + 999 + shortParts);
  });

  it('is how a message with several text parts reads', () => {
    const blocks = toBlocks([text('第一句。'), text('第二句。')]);
    expect(blocks).toEqual([expect.objectContaining({ kind: 'text', text: '第一句。第二句。' })]);
    expect(messageText({ msgArr: [text('Hello.'), text('Again.')] })).toBe('Hello. Again.');
  });
});

describe('what one message draws at most', () => {
  it('caps videos, web pages, suggestions (deduplicated) and blocks; the gallery keeps every image', () => {
    const parts: ChatPart[] = [
      ...Array.from({ length: 20 }, (_, i): ChatPart => ({ type: 'video', content: `http://a/${i}.webm` })),
      ...Array.from({ length: 20 }, (_, i): ChatPart => ({ type: 'webPage', content: `http://a/${i}.html` })),
      { type: 'relatedQa', content: [{ content: 'same' }, { content: 'same' }, { content: 'other' }] },
      { type: 'relatedQa', content: Array.from({ length: 30 }, (_, i) => ({ content: `q${i}` })) },
      ...Array.from({ length: 300 }, (_, i): ChatPart => (i % 2 ? image(`http://a/${i}.png`) : { type: 'divider', content: '' })),
    ];
    const blocks = toBlocks(parts);
    const count = (kind: string) => blocks.filter((b) => b.kind === kind).length;
    expect(count('video')).toBe(DRAW_LIMITS.videos);
    expect(count('webPage')).toBe(DRAW_LIMITS.webPages);
    const questions = blocks.flatMap((b) => (b.kind === 'related' ? b.questions : []));
    expect(questions).toHaveLength(DRAW_LIMITS.suggestions);
    expect(questions.slice(0, 3)).toEqual(['same', 'other', 'q0']);
    expect(blocks.length).toBeLessThanOrEqual(DRAW_LIMITS.blocks);
    const gallery = blocks.find((b) => b.kind === 'gallery');
    expect(gallery?.kind === 'gallery' && gallery.images).toHaveLength(150);
  });

  it('a long text previews its beginning without cutting a surrogate pair', () => {
    expect(textPreview('short', 10)).toBe('short');
    expect(textPreview('abcdefghijkl', 5)).toBe('abcde\u2026');
    expect(textPreview('abcd\u{1F600}xyz', 5)).toBe('abcd\u2026');
  });
});

describe('thinking dots', () => {
  it('show for a thinking message with fewer than two parts only', () => {
    expect(showsThinkingDots({ type: 'thinking', msgArr: [] })).toBe(true);
    expect(showsThinkingDots({ type: 'thinking', msgArr: [text('a')] })).toBe(true);
    expect(showsThinkingDots({ type: 'thinking', msgArr: [text('a'), text('b')] })).toBe(false);
    expect(showsThinkingDots({ type: 'text', msgArr: [] })).toBe(false);
  });
});

describe('text taken from a message', () => {
  it('has its line breaks removed and is trimmed', () => {
    // Removed, not replaced by a space: the spec's rule, kept exactly.
    expect(cleanTakenText('  opening\nhours\r\n please \n')).toBe('openinghours please');
    expect(cleanTakenText('\n\n  ')).toBe('');
  });

  it('is the message text parts joined like the log shows them', () => {
    expect(messageText({ msgArr: [text('a'), image('http://x/1.png'), text('b')] })).toBe('a b');
  });
});
