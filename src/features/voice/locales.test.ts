import { describe, expect, it } from 'vitest';
import { LANGS } from '../locale/localeSlice.ts';
import { DEFAULT_RECOGNITION_LOCALE, RECOGNITION_LOCALE, recognitionLocaleFor } from './locales.ts';

describe('recognition locales', () => {
  it('maps every interface language to the locale of the spec table', () => {
    expect(LANGS.map((lang) => [lang, recognitionLocaleFor(lang)])).toEqual([
      ['zh', 'zh-CN'],
      ['cht', 'zh-TW'],
      ['en', 'en-US'],
      ['jp', 'ja-JP'],
      ['kor', 'ko-KR'],
    ]);
    expect(Object.keys(RECOGNITION_LOCALE).sort()).toEqual([...LANGS].sort());
  });

  it('falls back to zh-TW for unknown, empty or prototype-ish values', () => {
    expect(DEFAULT_RECOGNITION_LOCALE).toBe('zh-TW');
    for (const bad of [undefined, null, '', 'fr', 'ja', 'toString', '__proto__']) {
      expect(recognitionLocaleFor(bad)).toBe('zh-TW');
    }
  });
});
