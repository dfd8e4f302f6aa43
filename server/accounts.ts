/**
 * The local accounts of docs/contract.md C9, as POST /ue/userinfo returns them.
 *
 * The client counts an account as valid only when it has more than two fields,
 * so an unknown id answers an empty object. URLs are absolute, built from the
 * Host the client used, because the real user service is on another host.
 *
 * Titles and labels are in the language the stand-in answers in (languages.ts: zh, cht
 * converted from zh by OpenCC, and English for every other language).
 */
import { ACCOUNT_ASSETS } from './assets.ts';
import { answerLang, isLang, langFromTag, type Lang } from './languages.ts';
import { toTraditional } from './replies/traditional.ts';

export const SPEECH_KEY = 'demo-speech-key';
export const SPEECH_REGION = 'local';

/** English and simplified Chinese; traditional is made from the Chinese. */
interface Localised {
  en: string;
  zh: string;
}

interface AccountTemplate {
  title: Localised;
  label: Localised;
  company: string;
  background: string;
  asr: boolean;
}

const ACCOUNTS: Record<string, AccountTemplate> = {
  demo: {
    title: { en: 'Ava · Shopping Assistant', zh: '艾娃 · 购物助手' },
    label: { en: 'AI assistant', zh: 'AI 助手' },
    company: 'Harbour Outfitters',
    background: ACCOUNT_ASSETS.background,
    asr: true,
  },
  noasr: {
    title: { en: 'Ava · Text Assistant', zh: '艾娃 · 文字对话助手' },
    label: { en: 'AI assistant', zh: 'AI 助手' },
    company: 'Harbour Outfitters',
    background: ACCOUNT_ASSETS.background,
    asr: false,
  },
  // The special account of the local environment: its background is a video.
  gov: {
    title: { en: 'City Services Digital Host', zh: '市民服务中心数字主持人' },
    label: { en: 'Digital host', zh: '数字主持人' },
    company: 'City Services Centre',
    background: ACCOUNT_ASSETS.backgroundVideo,
    asr: true,
  },
};

export function isKnownAccount(uid: string): boolean {
  return Object.hasOwn(ACCOUNTS, uid);
}

/**
 * The client language asked for: the request's `lang` field when it names one of the list,
 * else the first tag of Accept-Language read as the client reads a browser's (zh-TW, zh-HK,
 * zh-MO or Hant: cht; other zh: zh; ja: jp; ko: kor), else English.
 */
export function accountLang(lang: unknown, acceptLanguage: string | undefined): Lang {
  if (isLang(lang)) return lang;
  const first = (acceptLanguage ?? '').split(',')[0]?.split(';')[0] ?? '';
  return langFromTag(first) ?? 'en';
}

function localised(text: Localised, lang: Lang): string {
  const answer = answerLang(lang);
  if (answer === 'cht') return toTraditional(text.zh);
  return text[answer];
}

/** The `data` of a /ue/userinfo answer; `{}` (not valid) for an unknown id. */
export function accountInfo(uid: string, httpOrigin: string, lang: Lang = 'en'): Record<string, unknown> {
  const account = Object.hasOwn(ACCOUNTS, uid) ? ACCOUNTS[uid] : undefined;
  if (!account) return {};
  const photo = new URL(ACCOUNT_ASSETS.avatar, httpOrigin).href;
  const title = localised(account.title, lang);
  return {
    uid,
    app_id: `standin-${uid}`,
    name: account.company,
    title,
    label: localised(account.label, lang),
    photo,
    Background: new URL(account.background, httpOrigin).href,
    WebData: { use_web_photo: photo, use_web_title: title },
    ...(account.asr ? { AsrList: { app_key: SPEECH_KEY, region: SPEECH_REGION } } : {}),
    version: '1.0.0',
  };
}
