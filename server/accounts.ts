/**
 * The local accounts of CONTRACT.md section 3, as POST /ue/userinfo returns them.
 *
 * The client counts an account as valid only when it has more than two fields,
 * so an unknown id answers an empty object. URLs are absolute, built from the
 * Host the client used, because the real user service is on another host.
 */
import { ACCOUNT_ASSETS } from './assets.ts';

export const SPEECH_KEY = 'demo-speech-key';
export const SPEECH_REGION = 'local';

interface AccountTemplate {
  title: string;
  label: string;
  company: string;
  background: string;
  asr: boolean;
}

const ACCOUNTS: Record<string, AccountTemplate> = {
  demo: {
    title: 'Ava · Shopping Assistant',
    label: 'AI assistant',
    company: 'Harbour Outfitters',
    background: ACCOUNT_ASSETS.background,
    asr: true,
  },
  noasr: {
    title: 'Ava · Text Assistant',
    label: 'AI assistant',
    company: 'Harbour Outfitters',
    background: ACCOUNT_ASSETS.background,
    asr: false,
  },
  // The special account of the local environment: its background is a video.
  gov: {
    title: 'City Services Digital Host',
    label: 'Digital host',
    company: 'City Services Centre',
    background: ACCOUNT_ASSETS.backgroundVideo,
    asr: true,
  },
};

export function isKnownAccount(uid: string): boolean {
  return Object.hasOwn(ACCOUNTS, uid);
}

/** The `data` of a /ue/userinfo answer; `{}` (not valid) for an unknown id. */
export function accountInfo(uid: string, httpOrigin: string): Record<string, unknown> {
  const account = Object.hasOwn(ACCOUNTS, uid) ? ACCOUNTS[uid] : undefined;
  if (!account) return {};
  const photo = new URL(ACCOUNT_ASSETS.avatar, httpOrigin).href;
  return {
    uid,
    app_id: `standin-${uid}`,
    name: account.company,
    title: account.title,
    label: account.label,
    photo,
    Background: new URL(account.background, httpOrigin).href,
    WebData: { use_web_photo: photo, use_web_title: account.title },
    ...(account.asr ? { AsrList: { app_key: SPEECH_KEY, region: SPEECH_REGION } } : {}),
    version: '1.0.0',
  };
}
