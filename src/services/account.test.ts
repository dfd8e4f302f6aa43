import { describe, expect, it, vi } from 'vitest';
import { createAccountService, parseUserInfoResponse, scrubbedUserInfo, storableUserInfo, toAccountInfo } from './account.ts';
import type { HttpClient } from './http.ts';

describe('parseUserInfoResponse', () => {
  it('accepts code 0 with more than two fields in data', () => {
    const result = parseUserInfoResponse({ code: 0, data: { a: 1, b: 2, c: 3 } });
    expect(result).toMatchObject({ valid: true, raw: { a: 1, b: 2, c: 3 } });
  });

  it.each([
    ['two fields', { code: 0, data: { a: 1, b: 2 } }, 'tooFewFields'],
    ['a non-zero code', { code: 1, data: { a: 1, b: 2, c: 3 } }, 'code'],
    ['no data', { code: 0 }, 'shape'],
    ['an array as data', { code: 0, data: [1, 2, 3] }, 'shape'],
    ['a string', 'ok', 'shape'],
  ])('rejects %s', (_name, body, reason) => {
    expect(parseUserInfoResponse(body)).toEqual({ valid: false, reason });
  });

  it('accepts a numeric-string code', () => {
    expect(parseUserInfoResponse({ code: '0', data: { a: 1, b: 2, c: 3 } }).valid).toBe(true);
  });
});

describe('toAccountInfo', () => {
  it('reads photo and title from WebData, the speech config from AsrList, and a video background', () => {
    const info = toAccountInfo({
      WebData: { use_web_photo: 'https://cdn.example.com/p.png', use_web_title: 'Store helper' },
      Background: 'https://cdn.example.com/bg.MP4',
      AsrList: { app_key: 'key', region: 'eastasia' },
    });
    expect(info).toEqual({
      photoUrl: 'https://cdn.example.com/p.png',
      title: 'Store helper',
      label: null,
      background: { kind: 'video', url: 'https://cdn.example.com/bg.MP4' },
      asr: { appKey: 'key', region: 'eastasia' },
    });
  });

  it('falls back to top-level fields and resolves same-origin paths', () => {
    const info = toAccountInfo({ use_web_photo: '/assets/p.png', title: 'T', label: 'Host', Background: '/assets/bg.jpg' });
    expect(info.photoUrl).toBe(new URL('/assets/p.png', location.href).href);
    expect(info).toMatchObject({ title: 'T', label: 'Host', background: { kind: 'image' }, asr: null });
  });

  it('drops unsafe URLs and incomplete speech configs', () => {
    const info = toAccountInfo({
      WebData: { use_web_photo: 'javascript:alert(1)' },
      Background: 'data:image/png;base64,AAAA',
      AsrList: [{ app_key: 'k' }, { app_key: 'k2', region: 'r2' }],
    });
    expect(info).toMatchObject({ photoUrl: null, background: null, asr: { appKey: 'k2', region: 'r2' } });
  });
});

describe('account service', () => {
  it('posts uid and version to /ue/userinfo', async () => {
    const http = { postForm: vi.fn(() => Promise.resolve({ code: 0, data: { a: 1, b: 2, c: 3 } })) };
    const service = createAccountService(http as unknown as HttpClient, { userServiceUrl: 'https://u.example', version: '1.0.0' });
    await expect(service.fetchUserInfo('demo')).resolves.toMatchObject({ valid: true });
    expect(http.postForm).toHaveBeenCalledWith('https://u.example/ue/userinfo', { uid: 'demo', version: '1.0.0' }, { signal: undefined });
  });
});

describe('what of the account is kept on the device', () => {
  it('storableUserInfo keeps everything but the speech settings, under either spelling', () => {
    expect(storableUserInfo({ uid: 'demo', AsrList: { app_key: 'k', region: 'r' }, asrList: [], title: 't' })).toEqual({ uid: 'demo', title: 't' });
  });

  it('scrubbedUserInfo rewrites a stored userInfo that holds the speech key, and leaves everything else alone', () => {
    expect(JSON.parse(scrubbedUserInfo(JSON.stringify({ uid: 'demo', AsrList: { app_key: 'k' } }))!)).toEqual({ uid: 'demo' });
    expect(scrubbedUserInfo(JSON.stringify({ uid: 'demo' }))).toBeNull();
    expect(scrubbedUserInfo('not json')).toBeNull();
    expect(scrubbedUserInfo('[1,2]')).toBeNull();
    expect(scrubbedUserInfo(null)).toBeNull();
  });
});
