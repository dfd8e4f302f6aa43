import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../languages.ts';
import { ENTRIES, FALLBACK } from './knowledge.data.ts';
import { findEntry, greetingEntry, kbLang, normalize, questions } from './knowledge.ts';

const CONTRACT_QUESTIONS = ['where is the nearest store', 'what are your opening hours', 'tell me about the discount', 'show me the new products'];

describe('questions', () => {
  it('contains the four questions of the contract exactly', () => {
    for (const q of CONTRACT_QUESTIONS) expect(questions('en')).toContain(q);
  });

  it('keeps English questions to plain lower-case words (they feed the speech grammar)', () => {
    for (const q of questions('en')) expect(q).toMatch(/^[a-z]+( [a-z]+)*$/);
  });

  it('has Chinese questions too', () => {
    expect(questions('zh').length).toBeGreaterThanOrEqual(ENTRIES.length);
  });
});

describe('kbLang', () => {
  it('answers zh and cht in Chinese and every other language in English', () => {
    expect(kbLang('zh')).toBe('zh');
    expect(kbLang('cht')).toBe('cht');
    const others = LANGUAGES.map((language) => language.code).filter((code) => code !== 'zh' && code !== 'cht');
    expect(others).toContain('jp');
    for (const lang of [...others, undefined, 42]) expect(kbLang(lang)).toBe('en');
  });
});

describe('normalize', () => {
  it('drops case, punctuation and extra spaces', () => {
    expect(normalize('  Where is the NEAREST store?! ')).toBe('where is the nearest store');
    expect(normalize('你们的营业时间是什么？')).toBe('你们的营业时间是什么');
  });
});

describe('findEntry', () => {
  it('matches a question typed or tapped in traditional characters', () => {
    expect(findEntry('最近的門店在哪裡？')).toMatchObject({ entry: { id: 'stores' }, how: 'exact' });
    expect(findEntry('你們的營業時間是什麼')).toMatchObject({ entry: { id: 'hours' }, how: 'exact' });
  });

  it('matches each contract question exactly to an entry with a spoken answer', () => {
    const ids = CONTRACT_QUESTIONS.map((q) => {
      const match = findEntry(q);
      expect(match.how, q).toBe('exact');
      expect(match.entry.answer.en.some((p) => 'text' in p && p.text.length > 20), q).toBe(true);
      return match.entry.id;
    });
    expect(ids).toEqual(['stores', 'hours', 'discount', 'products']);
  });

  it('ignores case and punctuation as the speech service or a visitor might write them', () => {
    expect(findEntry('Where is the nearest store?')).toMatchObject({ how: 'exact', entry: { id: 'stores' } });
    expect(findEntry('给我看看新产品！')).toMatchObject({ how: 'exact', entry: { id: 'products' } });
  });

  it('falls back to keyword overlap for paraphrases, in both languages', () => {
    expect(findEntry('any coupons or a sale this week').entry.id).toBe('discount');
    expect(findEntry('when does the shop close').entry.id).toBe('hours');
    expect(findEntry('你们打折吗').entry.id).toBe('discount');
    expect(findEntry('门店地址').entry.id).toBe('stores');
  });

  it('answers politely when nothing matches', () => {
    expect(findEntry('what is the meaning of life')).toEqual({ entry: FALLBACK, how: 'fallback' });
    expect(findEntry('')).toEqual({ entry: FALLBACK, how: 'fallback' });
  });

  it('answers the greeting, opening hours, stores, products, discounts and goodbye', () => {
    expect(ENTRIES.map((e) => e.id).sort()).toEqual(['discount', 'goodbye', 'greeting', 'hours', 'products', 'stores']);
    expect(greetingEntry().id).toBe('greeting');
  });
});

describe('the answers', () => {
  it('stay short: one to three sentences of text per answer', () => {
    for (const entry of [...ENTRIES, FALLBACK]) {
      for (const lang of ['en', 'zh'] as const) {
        const texts = entry.answer[lang].flatMap((p) => ('text' in p ? [p.text] : []));
        expect(texts.length, `${entry.id}/${lang}`).toBeGreaterThanOrEqual(1);
        const sentences = texts.join(' ').split(/(?<=[.!?。！？])/).filter((s) => s.trim() !== '');
        expect(sentences.length, `${entry.id}/${lang}`).toBeLessThanOrEqual(3);
      }
    }
  });

  it('carry every part type somewhere: image, video, web page and suggested questions', () => {
    const parts = ENTRIES.flatMap((e) => [...e.answer.en, ...e.answer.zh]);
    for (const kind of ['text', 'image', 'video', 'web', 'related']) expect(parts.some((p) => kind in p), kind).toBe(true);
  });

  it('suggest only questions the knowledge base answers exactly', () => {
    const related = [...ENTRIES, FALLBACK].flatMap((e) => [...e.answer.en, ...e.answer.zh]).flatMap((p) => ('related' in p ? p.related : []));
    for (const q of related) expect(findEntry(q).how, q).toBe('exact');
  });

  it('have the same media in both languages', () => {
    for (const entry of ENTRIES) {
      const media = (lang: 'en' | 'zh') => entry.answer[lang].filter((p) => !('text' in p) && !('related' in p));
      expect(media('zh')).toEqual(media('en'));
    }
  });
});
