import { createIntl, type MessageDescriptor } from 'react-intl';
import { describe, expect, it } from 'vitest';
import en from '../../lang/en.json';
import kor from '../../lang/kor.json';
import zh from '../../lang/zh.json';
import { byLang, INTL_LOCALE, LANGS } from '../features/locale/langs.ts';
import { loadMessages, type Messages } from './i18n.ts';

const files = import.meta.glob<Messages>('../../lang/*.json', { import: 'default', eager: true });
/** Each language's file; one the list names without a file reads as empty, and fails below. */
const LOCALES = byLang((language) => files[`../../lang/${language.code}.json`] ?? {});

/**
 * Every descriptor of every feature's messages.ts (house style: messages live
 * there), the way `npm run i18n:extract` sees them. scripts/check-locales.mjs
 * runs the real extraction over all of src/ for the same check.
 */
function descriptorsInCode(): Messages {
  const modules = import.meta.glob<Record<string, unknown>>('../**/messages.ts', { eager: true });
  const found: Messages = {};
  for (const mod of Object.values(modules)) {
    for (const group of Object.values(mod)) {
      if (typeof group !== 'object' || group === null) continue;
      for (const d of Object.values(group as Record<string, unknown>)) {
        const { id, defaultMessage } = (d ?? {}) as { id?: unknown; defaultMessage?: unknown };
        if (typeof id === 'string' && typeof defaultMessage === 'string') found[id] = defaultMessage;
      }
    }
  }
  return found;
}

/** The names of an ICU message's arguments ({name}, {name, plural, ...}). */
function argumentNames(message: string): string[] {
  return [...message.matchAll(/\{\s*([A-Za-z_][\w]*)\s*[,}]/g)].map((m) => m[1] ?? '').sort();
}

const SPEC_CATALOGUE_ZH: Record<string, string> = {
  'error.invalidUser': '无效用户!!!',
  'error.asrConfigFailed': 'asr配置失败',
  'error.mediaAccessFailed': '无法访问麦克风或摄像头，请检查您的设备设置或浏览器权限。',
  'error.webrtcUnsupported': '浏览器不支持，请更换QQ浏览器',
  'error.pleaseWait': '请稍后，正在连接中！！！',
  'error.iceError': 'webrtc连接异常，请稍后重试！',
  'error.reconnectFailed': '连接失败，请刷新页面重试',
  'error.playFailed': '播放失败,请刷新重试',
  'error.routeFailed': '获取信令服务失败！！！',
  'error.signalingLost': 'error',
  'error.signalingDisconnected': '信令已断开',
};

describe('locale files', () => {
  it('en.json is what npm run i18n:extract makes of the code (run it after changing messages)', () => {
    expect(descriptorsInCode()).toEqual(en);
  });

  it.each(LANGS.filter((l) => l !== 'en'))('%s.json has exactly the keys of en.json', (lang) => {
    const keys = new Set(Object.keys(LOCALES[lang]));
    const missing = Object.keys(en).filter((k) => !keys.has(k));
    const extra = [...keys].filter((k) => !(k in en));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it.each(LANGS)('%s.json: every text is non-empty, valid ICU, with the arguments of en', (lang) => {
    const errors: string[] = [];
    const intl = createIntl({ locale: INTL_LOCALE[lang], messages: LOCALES[lang], onError: (e) => errors.push(e.message) });
    for (const [id, source] of Object.entries(en)) {
      const text = LOCALES[lang][id] ?? '';
      expect(text.trim(), id).not.toBe('');
      expect(argumentNames(text), id).toEqual(argumentNames(source));
      const values = Object.fromEntries(argumentNames(source).map((name) => [name, 1]));
      const descriptor: MessageDescriptor = { id };
      intl.formatMessage(descriptor, values);
    }
    expect(errors).toEqual([]);
  });

  it('zh carries the texts of the spec catalogue exactly', () => {
    for (const [id, text] of Object.entries(SPEC_CATALOGUE_ZH)) expect(zh[id as keyof typeof zh], id).toBe(text);
  });
});

describe('loadMessages', () => {
  it('loads the asked locale only, and caches it', async () => {
    const first = await loadMessages('kor');
    expect(first['session.startChat']).toBe(kor['session.startChat']);
    expect(await loadMessages('kor')).toBe(first);
  });
});
