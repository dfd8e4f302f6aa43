import { afterEach, describe, expect, it, vi } from 'vitest';
import { langChosen } from '../features/locale/localeSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { pickInitialLang } from './boot.ts';
import type { FakeOptions } from './testing/fakes.ts';
import { DEMO_INFO } from './testing/fakes.ts';
import { setupSagas, type Harness } from './testing/harness.ts';

let h: Harness;

async function boot(options: FakeOptions = {}) {
  vi.useFakeTimers();
  h = setupSagas(options);
  await h.flush();
}

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

describe('boot', () => {
  it('loads a valid account and stores userInfo, userId and a new device id', async () => {
    await boot();
    expect(h.account.fetchUserInfo).toHaveBeenCalledWith('demo');
    expect(h.state().account).toMatchObject({ status: 'valid', userId: 'demo', info: DEMO_INFO });
    expect(h.storage.dump()).toMatchObject({
      userId: 'demo',
      userInfo: JSON.stringify({ uid: 'demo', a: 1, b: 2 }),
      'login-deviceId': 'H5123e4567e89b12d3a456426614174000',
    });
    expect(h.state().account.deviceId).toBe('H5123e4567e89b12d3a456426614174000');
  });

  it('keeps the device id created on an earlier visit', async () => {
    await boot({ storage: { 'login-deviceId': 'H5abc' } });
    expect(h.state().account.deviceId).toBe('H5abc');
    expect(h.platform.randomUUID).not.toHaveBeenCalled();
  });

  it('shows the invalid-user toast when the account is not valid', async () => {
    vi.useFakeTimers();
    h = setupSagas({ path: '/25d/nobody', storage: { userInfo: '{"stale":true}' } }, (f) =>
      f.account.fetchUserInfo.mockResolvedValue({ valid: false, reason: 'tooFewFields' }),
    );
    await h.flush();
    expect(h.state().account.status).toBe('invalid');
    expect(h.state().notices.toasts.map((t) => t.message)).toEqual([{ id: catalogue.invalidUser.id }]);
    expect(h.storage.dump().userInfo).toBeUndefined();
  });

  it('treats a failed user-info call as an invalid account', async () => {
    vi.useFakeTimers();
    h = setupSagas({}, (f) => f.account.fetchUserInfo.mockRejectedValue(new Error('HTTP 502')));
    await h.flush();
    expect(h.state().account.status).toBe('invalid');
    expect(h.state().notices.toasts).toHaveLength(1);
  });

  it('loads nothing when the URL has no id', async () => {
    await boot({ path: '/25d/' });
    expect(h.state().account.status).toBe('missingId');
    expect(h.account.fetchUserInfo).not.toHaveBeenCalled();
    expect(h.state().notices.toasts).toEqual([]);
  });

  it('initialises the language from storage and saves the visitor’s later choice', async () => {
    await boot({ storage: { lang: 'jp' }, languages: ['ko-KR'] });
    expect(h.state().locale.lang).toBe('jp');
    h.dispatch(langChosen('kor'));
    expect(h.storage.dump().lang).toBe('kor');
  });

  it('saves the language picked from the browser on first load', async () => {
    await boot({ languages: ['fr-FR', 'zh-HK', 'en'] });
    expect(h.state().locale.lang).toBe('cht');
    expect(h.storage.dump().lang).toBe('cht');
  });
});

describe('pickInitialLang', () => {
  it.each([
    [null, ['zh-TW'], 'cht'],
    [null, ['zh-Hant-HK'], 'cht'],
    [null, ['zh-CN'], 'zh'],
    [null, ['zh'], 'zh'],
    [null, ['ja-JP'], 'jp'],
    [null, ['ko'], 'kor'],
    [null, ['en-GB'], 'en'],
    [null, ['de', 'fr'], 'zh'],
    [null, [], 'zh'],
    ['xx', ['en'], 'en'],
    ['cht', ['en'], 'cht'],
  ] as const)('stored %s with browser %j gives %s', (stored, languages, expected) => {
    expect(pickInitialLang(stored, languages)).toBe(expected);
  });
});
