/**
 * docs/requirements.md R113: the environments are debug, test, product and pre, and the build uses
 * product (`npm run build` is `vite build --mode product`). The real hosts are not in the
 * repository: the product environment takes its service URLs from the VITE_* variables
 * of the build (docs/hosting.md), and carries none of the support tools of `local` and `debug`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { environmentFor, transportPolicyFor } from './environments.ts';
import { isStatsPanelRequested } from '../features/stats/selectors.ts';

const VARS = {
  VITE_USER_SERVICE_URL: 'https://user.example.com',
  VITE_ROUTING_SERVICE_URL: 'https://route.example.com',
  VITE_LIVE_SERVICE_URL: 'https://live.example.com',
  VITE_MEDIA_SERVER_URL: 'https://srs.example.com',
  VITE_TURN_URLS: 'turn:turn.example.com:3478?transport=udp, turns:turn.example.com:5349',
  VITE_TURN_USERNAME: 'relay-user',
  VITE_TURN_CREDENTIAL: 'relay-secret',
  VITE_SPECIAL_ACCOUNT_ID: 'city-hall',
  VITE_SERVER_NAME: 'avatar-prod',
  VITE_SPEECH_HOST: 'wss://speech.example.com:5000',
};

const path = () => `${location.pathname}${location.search}${location.hash}`;
let before = '';

beforeEach(() => {
  before = path();
});
afterEach(() => {
  vi.unstubAllEnvs();
  history.replaceState(null, '', before);
});

describe('the product environment', () => {
  it('is what `npm run build` builds', () => {
    expect(pkg.scripts.build).toMatch(/--mode product\b/);
  });

  it('takes its service URLs, relay, speech host, special account and server name from the VITE_* variables', () => {
    for (const [name, value] of Object.entries(VARS)) vi.stubEnv(name, value);
    expect(environmentFor('product')).toMatchObject({
      name: 'product',
      userServiceUrl: 'https://user.example.com',
      routingServiceUrl: 'https://route.example.com',
      liveServiceUrl: 'https://live.example.com',
      mediaServerUrl: 'https://srs.example.com',
      iceServers: [
        {
          urls: ['turn:turn.example.com:3478?transport=udp', 'turns:turn.example.com:5349'],
          username: 'relay-user',
          credential: 'relay-secret',
        },
      ],
      // A speech container (or the stand-in) by host: SpeechConfig.fromHost instead of fromSubscription.
      speechHost: 'wss://speech.example.com:5000',
      specialAccountId: 'city-hall',
      serverName: 'avatar-prod',
    });
  });

  it('without the variables, names no host of its own: the page’s origin, the route’s media server, no relay, no special account', () => {
    for (const name of Object.keys(VARS)) vi.stubEnv(name, '');
    expect(environmentFor('product')).toMatchObject({
      userServiceUrl: '',
      routingServiceUrl: '',
      liveServiceUrl: '',
      mediaServerUrl: null,
      iceServers: [],
      specialAccountId: '',
    });
  });

  it('has no debug tools, no stats panel unless asked for, and recognizes speech with the account’s key and region', () => {
    const product = environmentFor('product');
    expect(product.debugTools).toBe(false);
    expect(product.showBitrate).toBe(false);
    expect(isStatsPanelRequested(null, product.showBitrate)).toBe(false);
    // fromSubscription(key, region), not the stand-in's host.
    expect(product.speechHost).toBeNull();
  });

  it('has no relay-only switch: ?relay=1 leaves every candidate type allowed', () => {
    expect(transportPolicyFor('product', '?relay=1')).toBe('all');
    history.replaceState(null, '', '/25d/demo?relay=1');
    expect(environmentFor('product').iceTransportPolicy).toBe('all');
  });

  it('is like test and pre, while debug keeps the support tools and local is the stand-in', () => {
    for (const name of ['test', 'pre'] as const) {
      expect(environmentFor(name)).toMatchObject({ debugTools: false, showBitrate: false, speechHost: null });
      expect(transportPolicyFor(name, '?relay=1')).toBe('all');
    }
    expect(environmentFor('debug')).toMatchObject({ debugTools: true, showBitrate: true });
    expect(transportPolicyFor('debug', '?relay=1')).toBe('relay');
    expect(transportPolicyFor('local', '?relay=1')).toBe('relay');
    expect(environmentFor('local')).toMatchObject({ debugTools: true, specialAccountId: 'gov' });
  });
});

describe('the local environment on a phone (npm start -- --lan)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('follows the address the phone used: speech over wss://; no relay credential is built in (the route hands one out)', () => {
    vi.stubGlobal('location', new URL('https://192.168.1.23:8443/25d/demo?relay=1'));
    expect(environmentFor('local')).toMatchObject({
      speechHost: 'wss://192.168.1.23:8443',
      iceServers: [],
      iceTransportPolicy: 'relay',
      userServiceUrl: '',
      routingServiceUrl: '',
      liveServiceUrl: '',
      mediaServerUrl: null,
    });
    vi.stubGlobal('location', new URL('http://127.0.0.1:8080/25d/demo'));
    expect(environmentFor('local')).toMatchObject({ speechHost: 'ws://127.0.0.1:8080', iceServers: [] });
  });
});

