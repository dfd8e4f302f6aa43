/**
 * POST {userService}/ue/userinfo (form-encoded uid, version) and the mapping of
 * its `data` to the few fields the client reads. The `data` object is stored as
 * `userInfo` without its speech settings (storableUserInfo); only AccountInfo enters
 * the store.
 */
import type { AccountInfo } from '../features/account/accountSlice.ts';
import { isNonEmptyString, isObject, numberField, objectField, safeHttpUrl, stringField, type JsonObject } from './guards.ts';
import type { HttpClient } from './http.ts';
import { createLogger } from './logger.ts';

const log = createLogger('account');

export type UserInfoResult =
  | { valid: true; raw: JsonObject; info: AccountInfo }
  | { valid: false; reason: 'code' | 'shape' | 'tooFewFields' };

export interface AccountService {
  /** Throws HttpError when the call itself fails; an answer that is not a valid account is `valid: false`. */
  fetchUserInfo(uid: string, signal?: AbortSignal): Promise<UserInfoResult>;
}

const VIDEO_EXTENSIONS = /\.(mp4|webm|mov|m4v|ogv|m3u8)$/i;

function firstString(sources: (JsonObject | null)[], keys: string[]): string | null {
  for (const source of sources) {
    if (!source) continue;
    for (const key of keys) {
      const value = stringField(source, key);
      if (isNonEmptyString(value)) return value.trim();
    }
  }
  return null;
}

function backgroundOf(data: JsonObject): AccountInfo['background'] {
  const raw = data.Background ?? data.background;
  const candidate = isObject(raw) ? (raw.url ?? raw.src) : raw;
  const url = safeHttpUrl(candidate);
  if (!url) return null;
  const kind = VIDEO_EXTENSIONS.test(new URL(url).pathname) ? 'video' : 'image';
  return { kind, url };
}

/** AsrList is documented as {app_key, region}; a list of such entries is accepted too (first complete one wins). */
function asrOf(data: JsonObject): AccountInfo['asr'] {
  const raw = data.AsrList ?? data.asrList;
  const entries = Array.isArray(raw) ? raw : [raw];
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    const appKey = stringField(entry, 'app_key');
    const region = stringField(entry, 'region');
    if (isNonEmptyString(appKey) && isNonEmptyString(region)) return { appKey: appKey.trim(), region: region.trim() };
  }
  return null;
}

/**
 * Photo and title come from WebData (use_web_photo / use_web_title) when present,
 * otherwise from top-level fields of the same or plainer names.
 */
export function toAccountInfo(data: JsonObject): AccountInfo {
  const web = objectField(data, 'WebData');
  const photo = firstString([web, data], ['use_web_photo', 'photo', 'avatar']);
  return {
    photoUrl: safeHttpUrl(photo),
    title: firstString([web, data], ['use_web_title', 'title', 'name']),
    label: firstString([web, data], ['use_web_label', 'label']),
    background: backgroundOf(data),
    asr: asrOf(data),
  };
}

/** The account's speech settings (AsrList: the speech key and region), under either spelling. */
const SPEECH_FIELDS = ['AsrList', 'asrList'];

/**
 * What of the account may be kept on the device: everything but the speech key. The
 * specification reads AsrList and stores the rest; the key stays in memory only.
 */
export function storableUserInfo(data: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(data).filter(([key]) => !SPEECH_FIELDS.includes(key)));
}

/** A stored userInfo with the speech key in it (written by an older version), or null. */
export function scrubbedUserInfo(stored: string | null): string | null {
  if (stored === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  if (!isObject(parsed) || !SPEECH_FIELDS.some((key) => key in parsed)) return null;
  return JSON.stringify(storableUserInfo(parsed));
}

export function parseUserInfoResponse(body: unknown): UserInfoResult {
  if (!isObject(body)) return { valid: false, reason: 'shape' };
  if (numberField(body, 'code') !== 0) return { valid: false, reason: 'code' };
  const data = body.data;
  if (!isObject(data)) return { valid: false, reason: 'shape' };
  // docs/requirements.md R72: the account is valid only if its info has more than two fields.
  if (Object.keys(data).length <= 2) return { valid: false, reason: 'tooFewFields' };
  return { valid: true, raw: data, info: toAccountInfo(data) };
}

export const userInfoUrl = (userServiceUrl: string) => `${userServiceUrl}/ue/userinfo`;
export const userInfoFields = (uid: string, version: string) => ({ uid, version });

export function createAccountService(http: HttpClient, config: { userServiceUrl: string; version: string }): AccountService {
  return {
    async fetchUserInfo(uid, signal) {
      const body = await http.postForm(userInfoUrl(config.userServiceUrl), userInfoFields(uid, config.version), { signal });
      const result = parseUserInfoResponse(body);
      if (!result.valid) log.info('account rejected', { uid, reason: result.reason });
      return result;
    },
  };
}
