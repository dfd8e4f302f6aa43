import { describe, expect, it } from 'vitest';
import { getQueryParam, parseRoute } from './routes.ts';

const at = (pathname: string, search = '', hash = '') => ({ pathname, search, hash });

describe('parseRoute', () => {
  it.each([
    ['/25d/demo', { kind: 'home', id: 'demo' }],
    ['/25d/demo/', { kind: 'home', id: 'demo' }],
    ['/25d/gov', { kind: 'home', id: 'gov' }],
    ['/25d/%E5%BA%97', { kind: 'home', id: '店' }],
    ['/25d/replay', { kind: 'replay' }],
    ['/25d/', { kind: 'none' }],
    ['/25d', { kind: 'none' }],
    ['/', { kind: 'none' }],
    ['/other/demo', { kind: 'none' }],
    ['/25d/demo/extra', { kind: 'none' }],
    ['/25d/%E0%A4%A', { kind: 'none' }],
    ['/25d/a%20b', { kind: 'none' }],
    [`/25d/${'x'.repeat(129)}`, { kind: 'none' }],
  ])('%s → %j', (pathname, expected) => {
    expect(parseRoute(at(pathname))).toEqual(expected);
  });
});

describe('getQueryParam', () => {
  it('reads the search string', () => {
    expect(getQueryParam('showBitrate', at('/25d/demo', '?showBitrate=1'))).toBe('1');
  });

  it('reads the part after a question mark in the hash', () => {
    expect(getQueryParam('showBitrate', at('/25d/demo', '', '#/home?showBitrate=1&x=2'))).toBe('1');
    expect(getQueryParam('x', at('/25d/demo', '', '#?x=2'))).toBe('2');
  });

  it('prefers the search string and answers null when absent', () => {
    expect(getQueryParam('a', at('/25d/demo', '?a=search', '#?a=hash'))).toBe('search');
    expect(getQueryParam('a', at('/25d/demo', '?b=1', '#nothing'))).toBeNull();
  });
});
