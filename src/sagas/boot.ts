/**
 * App start: device id, language, and the account named by the URL.
 * Without an id in the URL nothing loads (docs/requirements.md R9).
 */
import { call, delay, fork, put, take, takeEvery, type SagaGenerator } from 'typed-redux-saga';
import { parseRoute } from '../app/routes.ts';
import { accountLoaded, accountRejected, accountRetryRequested, accountUnreachable, bootStarted } from '../features/account/accountSlice.ts';
import { pickInitialLang } from '../features/locale/langs.ts';
import { langChosen, langInitialized } from '../features/locale/localeSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { toastShown } from '../features/notices/noticesSlice.ts';
import { scrubbedUserInfo, storableUserInfo, type UserInfoResult } from '../services/account.ts';
import { HttpError } from '../services/http.ts';
import { createLogger } from '../services/logger.ts';
import type { PlatformService } from '../services/platform.ts';
import { STORAGE_KEYS, type KeyValueStorage } from '../services/storage.ts';
import { coreServices } from './context.ts';

const log = createLogger('boot');

export { langFromTag, pickInitialLang } from '../features/locale/langs.ts';

const DEVICE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** login-deviceId: 'H5' + a UUID without dashes, created once and kept. */
export function ensureDeviceId(storage: KeyValueStorage, platform: PlatformService): string {
  const stored = storage.get(STORAGE_KEYS.deviceId);
  if (stored && DEVICE_ID_PATTERN.test(stored)) return stored;
  const created = `H5${platform.randomUUID().replaceAll('-', '')}`;
  storage.set(STORAGE_KEYS.deviceId, created);
  return created;
}

function* persistLangChoices(storage: KeyValueStorage) {
  yield* takeEvery(langChosen.match, (action) => {
    storage.set(STORAGE_KEYS.lang, action.payload);
  });
}

/** Waits between the attempts of /ue/userinfo when the service cannot be reached: three attempts in all. */
export const USERINFO_RETRY_DELAYS_MS = [1000, 2000] as const;

/**
 * Whether a failed /ue/userinfo says nothing about the account: no answer (offline, a
 * timeout), a server error, or a body that is not JSON. A 4xx or an answer of the wrong
 * shape is the service's word on the account.
 */
export function isTransientFailure(error: unknown): boolean {
  if (!(error instanceof HttpError)) return true;
  if (error.kind === 'status') return error.status === null || error.status >= 500 || error.status === 408 || error.status === 429;
  return error.kind !== 'badShape';
}

type Fetched = { kind: 'answered'; result: UserInfoResult } | { kind: 'unreachable' };

function* fetchWithRetries(userId: string): SagaGenerator<Fetched> {
  const { account } = yield* coreServices();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return { kind: 'answered', result: yield* call([account, account.fetchUserInfo], userId) };
    } catch (error) {
      if (!isTransientFailure(error)) {
        log.warn('user info refused', { error: String(error) });
        return { kind: 'answered', result: { valid: false, reason: 'shape' } };
      }
      const wait = USERINFO_RETRY_DELAYS_MS[attempt];
      if (wait === undefined) {
        log.warn('user service unreachable', { attempts: attempt + 1, error: String(error) });
        return { kind: 'unreachable' };
      }
      log.info('user info failed; retrying', { attempt: attempt + 1, waitMs: wait, error: String(error) });
      yield* delay(wait);
    }
  }
}

function* loadAccount(userId: string) {
  const { storage } = yield* coreServices();
  storage.set(STORAGE_KEYS.userId, userId);
  for (;;) {
    const fetched = yield* call(fetchWithRetries, userId);
    if (fetched.kind === 'unreachable') {
      // Not the account's fault: keep what is stored, offer Retry with a network message.
      yield* put(accountUnreachable());
      yield* take(accountRetryRequested.match);
      continue;
    }
    if (fetched.result.valid) {
      storage.set(STORAGE_KEYS.userInfo, JSON.stringify(storableUserInfo(fetched.result.raw)));
      yield* put(accountLoaded(fetched.result.info));
      return;
    }
    // No valid-account flag: the invalid-user toast, and no content (docs/requirements.md R13).
    storage.remove(STORAGE_KEYS.userInfo);
    yield* put(accountRejected());
    yield* put(toastShown({ id: catalogue.invalidUser.id }));
    return;
  }
}

export function* boot() {
  const { platform, storage } = yield* coreServices();
  const route = parseRoute(platform.location());
  const deviceId = ensureDeviceId(storage, platform);
  // An older version stored the speech key with the account: it stays in memory only now.
  const scrubbed = scrubbedUserInfo(storage.get(STORAGE_KEYS.userInfo));
  if (scrubbed !== null) storage.set(STORAGE_KEYS.userInfo, scrubbed);
  const lang = pickInitialLang(storage.get(STORAGE_KEYS.lang), platform.languages());
  storage.set(STORAGE_KEYS.lang, lang);
  yield* put(langInitialized(lang));
  yield* fork(persistLangChoices, storage);

  const userId = route.kind === 'home' ? route.id : null;
  yield* put(bootStarted({ userId, deviceId }));
  if (userId === null) {
    log.info('no account id in the URL', { route: route.kind });
    return;
  }
  yield* call(loadAccount, userId);
}
