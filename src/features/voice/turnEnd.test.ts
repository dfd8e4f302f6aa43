import { describe, expect, it } from 'vitest';
import { continued, leftOpen } from './turnEnd.ts';

describe('leftOpen: words no question ends on (D8)', () => {
  it.each([
    ['en', 'Where is the?', true],
    ['en', 'where is the nearest', false],
    ['en', 'Where is the nearest store?', false],
    ['en', 'What are your', true],
    ['en', 'tell me about', true],
    ['en', 'um', true],
    ['en', 'Where can I?', true],
    ['en', 'Thematic', false],
    ['zh', '最近的门店在', true],
    ['zh', '最近的门店在哪里？', false],
    ['cht', '請問', true],
    ['cht', '最近的門市在哪裡？', false],
    ['jp', '一番近い店は', true],
    ['jp', '一番近い店はどこですか？', false],
    ['kor', '가장 가까운 매장은', true],
    ['kor', '가장 가까운 매장은 어디예요?', false],
    ['kor', '그리고', true],
  ])('%s "%s": %s', (lang, text, open) => {
    expect(leftOpen([text], lang)).toBe(open);
  });

  it('reads the last phrase of several, and nothing is open in a language it does not know or with no words', () => {
    expect(leftOpen(['Hello.', 'Where is the'], 'en')).toBe(true);
    expect(leftOpen(['Where is the', 'nearest store'], 'en')).toBe(false);
    expect(leftOpen(['the'], 'xx')).toBe(false);
    expect(leftOpen(['', ' ? '], 'en')).toBe(false);
  });
});

describe('continued: one sentence from the phrases of a pause', () => {
  it('drops the punctuation that closed an open phrase and the capital of the one going on from it', () => {
    expect(continued(['Where is the?', 'Nearest store.'], 'en')).toEqual(['Where is the', 'nearest store.']);
    expect(continued(['What can', 'I buy here?'], 'en')).toEqual(['What can', 'I buy here?']);
    expect(continued(['Hello.', 'Where is it?'], 'en')).toEqual(['Hello.', 'Where is it?']);
    expect(continued(['最近的门店在。', '哪里？'], 'zh')).toEqual(['最近的门店在', '哪里？']);
  });
});
