/**
 * docs/requirements.md R75 and R112: POST /ue/userinfo carries `version`, which is 1.0.0. It is the
 * app's own version, taken at build time from package.json (vite.config.ts defines
 * __APP_VERSION__), exported as APP_VERSION (src/app/environments.ts) and given to the
 * account service by createCoreServices: the chain is checked link by link, up to the form
 * body that goes on the wire.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { APP_VERSION } from '../app/environments.ts';
import { createCoreServices } from './index.ts';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the version sent with /ue/userinfo', () => {
  it('is the specification’s 1.0.0, kept in package.json', () => {
    expect(pkg.version).toBe('1.0.0');
  });

  it('is the app version the build defines from package.json', () => {
    expect(__APP_VERSION__).toBe(pkg.version);
    expect(APP_VERSION).toBe(pkg.version);
  });

  it('is what the account service of the running app puts in the form body', async () => {
    const fetch = vi.fn((_input: string, _init: RequestInit) =>
      Promise.resolve(new Response(JSON.stringify({ code: 0, data: { uid: 'demo', title: 'T', Background: '' } }))),
    );
    vi.stubGlobal('fetch', fetch);
    await createCoreServices().account.fetchUserInfo('demo');
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toMatch(/\/ue\/userinfo$/);
    expect(init?.method).toBe('POST');
    const body = new URLSearchParams(String(init?.body));
    expect(body.get('version')).toBe(pkg.version);
    expect(body.get('uid')).toBe('demo');
  });
});
