import { describe, expect, it } from 'vitest';
import { LANGS, LANGUAGES } from '../locale/localeSlice.ts';
import { DEFAULT_RECOGNITION_LOCALE, RECOGNITION_LOCALE, recognitionLocaleFor } from './locales.ts';

describe('recognition locales', () => {
  it('maps every interface language to the locale of the spec table', () => {
    const specTable = [
      ['zh', 'zh-CN'],
      ['cht', 'zh-TW'],
      ['en', 'en-US'],
      ['jp', 'ja-JP'],
      ['kor', 'ko-KR'],
    ];
    for (const [lang, locale] of specTable) expect(recognitionLocaleFor(lang), lang).toBe(locale);
    // A language the specification does not name has the locale the list gives it, not the fallback.
    for (const { code, recognition } of LANGUAGES) expect(recognitionLocaleFor(code), code).toBe(recognition);
    expect(Object.keys(RECOGNITION_LOCALE)).toEqual([...LANGS]);
  });

  it('falls back to zh-TW for unknown, empty or prototype-ish values', () => {
    expect(DEFAULT_RECOGNITION_LOCALE).toBe('zh-TW');
    for (const bad of [undefined, null, '', 'fr', 'ja', 'toString', '__proto__']) {
      expect(recognitionLocaleFor(bad)).toBe('zh-TW');
    }
  });
});
