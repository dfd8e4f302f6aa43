import { describe, expect, it } from 'vitest';
import { customReply, ReplyValidationError, speechLang, splitSentences, toReplyParts } from './reply.ts';

describe('splitSentences', () => {
  it('splits English after . ! ? and Chinese after 。！？', () => {
    expect(splitSentences('Hello there. How are you? Fine!')).toEqual(['Hello there.', 'How are you?', 'Fine!']);
    expect(splitSentences('我们每天营业。欢迎光临！')).toEqual(['我们每天营业。', '欢迎光临！']);
  });

  it('keeps decimals and drops empty pieces', () => {
    expect(splitSentences('It costs 9.99 today.  ')).toEqual(['It costs 9.99 today.']);
    expect(splitSentences('   ')).toEqual([]);
  });
});

describe('toReplyParts', () => {
  it('turns asset paths into absolute URLs of the given origin, in order', () => {
    const parts = toReplyParts(
      [{ text: 'Look.' }, { image: '/assets-standin/a.png' }, { video: '/v.webm' }, { web: '/p.html' }, { related: ['q'] }],
      'http://10.0.0.2:8080',
    );
    expect(parts).toEqual([
      { text: 'Look.' },
      { image_url: 'http://10.0.0.2:8080/assets-standin/a.png' },
      { video_url: 'http://10.0.0.2:8080/v.webm' },
      { web_url: 'http://10.0.0.2:8080/p.html' },
      { related_qa: ['q'] },
    ]);
  });
});

describe('speechLang', () => {
  it('picks the Chinese voice for Han characters and English for Latin text', () => {
    expect(speechLang('你好', 'en')).toBe('zh');
    expect(speechLang('Hello', 'zh')).toBe('en');
    expect(speechLang('123', 'zh')).toBe('zh');
  });
});

describe('customReply', () => {
  it('accepts every field and keeps the order text, image, video, web, related', () => {
    expect(
      customReply({ related: ['a'], web_url: 'https://x.test/p', text: ' Hi. ', image_url: 'http://x.test/i.png', video_url: 'http://x.test/v.webm' }),
    ).toEqual([
      { text: 'Hi.' },
      { image_url: 'http://x.test/i.png' },
      { video_url: 'http://x.test/v.webm' },
      { web_url: 'https://x.test/p' },
      { related_qa: ['a'] },
    ]);
  });

  it.each([
    [{}, /at least one/],
    [{ text: 5 }, /text must be a non-empty string/],
    [{ text: '' }, /text must be a non-empty string/],
    [{ image_url: 'javascript:alert(1)' }, /http\(s\) URL/],
    [{ video_url: 'not a url' }, /absolute http\(s\) URL/],
    [{ web_url: 7 }, /must be a string/],
    [{ related: 'q' }, /related must be an array/],
    [{ related: ['ok', 3] }, /related must be an array/],
    [{ text: 'x'.repeat(2_001) }, /too long/],
  ])('refuses %j', (body, message) => {
    expect(() => customReply(body as Record<string, unknown>)).toThrow(ReplyValidationError);
    expect(() => customReply(body as Record<string, unknown>)).toThrow(message);
  });
});
