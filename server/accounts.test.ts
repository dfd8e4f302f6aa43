import { describe, expect, it } from 'vitest';
import { accountInfo, accountLang } from './accounts.ts';
import { LANGUAGES } from './languages.ts';
import { toSimplified, toTraditional } from './replies/traditional.ts';

const ORIGIN = 'http://127.0.0.1:8080';

function titles(uid: string, lang: Parameters<typeof accountInfo>[2]): { title: unknown; label: unknown; webTitle: unknown } {
  const info = accountInfo(uid, ORIGIN, lang);
  return { title: info['title'], label: info['label'], webTitle: (info['WebData'] as { use_web_title?: unknown }).use_web_title };
}

describe('account titles by language', () => {
  it.each(['demo', 'noasr', 'gov'])('%s: simplified in zh, traditional in cht, English otherwise', (uid) => {
    const zh = titles(uid, 'zh');
    const cht = titles(uid, 'cht');
    const en = titles(uid, 'en');
    for (const t of [zh, cht]) expect(t.title).toMatch(/\p{Script=Han}/u);
    expect(en.title).toMatch(/^[\x20-\x7e·]+$/u);
    expect(String(zh.title)).toBe(toSimplified(String(zh.title)));
    expect(String(cht.title)).toBe(toTraditional(String(cht.title)));
    expect(cht.title).not.toBe(zh.title);
    expect(toSimplified(String(cht.title))).toBe(zh.title);
    for (const t of [zh, cht, en]) expect(t.webTitle).toBe(t.title);
    // The stand-in writes English and Chinese only (server/languages.ts): every other language reads English.
    for (const { code } of LANGUAGES) if (code !== 'zh' && code !== 'cht') expect(titles(uid, code), code).toEqual(en);
  });

  it('names the demo assistant in each script', () => {
    expect(titles('demo', 'zh').title).toBe('艾娃 · 购物助手');
    expect(titles('demo', 'cht').title).toBe('艾娃 · 購物助手');
  });
});

describe('accountLang', () => {
  it('takes the lang field first, then the first Accept-Language tag', () => {
    expect(accountLang('cht', 'en-US')).toBe('cht');
    expect(accountLang(undefined, 'zh-TW,zh;q=0.9')).toBe('cht');
    expect(accountLang(undefined, 'zh-Hant-HK')).toBe('cht');
    expect(accountLang(undefined, 'zh-CN,en;q=0.5')).toBe('zh');
    expect(accountLang(undefined, 'ja-JP,en;q=0.5')).toBe('jp');
    expect(accountLang('fr', 'en-GB')).toBe('en');
    expect(accountLang(undefined, undefined)).toBe('en');
  });
});
