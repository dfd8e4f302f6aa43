/**
 * Per-environment configuration. Vite's mode picks the environment at build time
 * (`vite build --mode local|debug|test|pre|product`); `__APP_ENV__` is that mode.
 *
 * Base URLs may be '' to mean "the page's own origin" (the local stand-in serves
 * everything on one origin). The real hosts of the other environments are not
 * known to this repository: set them with the VITE_* variables listed in
 * docs/hosting.md when building for a real deployment.
 */
export type EnvName = 'local' | 'debug' | 'test' | 'pre' | 'product';

export interface EnvironmentConfig {
  name: EnvName;
  userServiceUrl: string;
  routingServiceUrl: string;
  liveServiceUrl: string;
  /** Overrides the srsLink returned by /get/route when set. */
  mediaServerUrl: string | null;
  iceServers: RTCIceServer[];
  /**
   * 'relay' makes the peer connection use only the TURN relay's candidates: `?relay=1` on
   * the app's URL, honoured in the `local` and `debug` environments only (support and tests).
   */
  iceTransportPolicy: RTCIceTransportPolicy;
  /** Speech service host for SpeechConfig.fromHost; null means fromSubscription(key, region). */
  speechHost: string | null;
  /** The account id that turns on the AI-summary notice and the digital-host label. */
  specialAccountId: string;
  /** The network stats panel is always on in this environment. */
  showBitrate: boolean;
  /** Debug conveniences (session-log hotkey). */
  debugTools: boolean;
  /** serverName sent to /get/route. */
  serverName: string;
}

const env = import.meta.env as Record<string, string | undefined>;

function fromEnv(name: string, fallback: string): string {
  const value = env[name];
  return value !== undefined && value !== '' ? value : fallback;
}

function iceFromEnv(): RTCIceServer[] {
  const urls = env.VITE_TURN_URLS;
  if (!urls) return [];
  return [
    {
      urls: urls.split(',').map((u) => u.trim()).filter(Boolean),
      username: env.VITE_TURN_USERNAME,
      credential: env.VITE_TURN_CREDENTIAL,
    },
  ];
}

/** `?relay=1`: relay-only ICE, where the environment allows it. */
export function transportPolicyFor(name: EnvName, search: string): RTCIceTransportPolicy {
  if (name !== 'local' && name !== 'debug') return 'all';
  return new URLSearchParams(search).get('relay') === '1' ? 'relay' : 'all';
}

function sameOriginWs(): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`;
}

function remote(name: EnvName, debug: boolean): EnvironmentConfig {
  return {
    name,
    userServiceUrl: fromEnv('VITE_USER_SERVICE_URL', ''),
    routingServiceUrl: fromEnv('VITE_ROUTING_SERVICE_URL', ''),
    liveServiceUrl: fromEnv('VITE_LIVE_SERVICE_URL', ''),
    mediaServerUrl: env.VITE_MEDIA_SERVER_URL || null,
    iceServers: iceFromEnv(),
    iceTransportPolicy: transportPolicyFor(name, location.search),
    // Azure's Speech containers (and the stand-in) are reached by host: SpeechConfig.fromHost.
    speechHost: env.VITE_SPEECH_HOST || null,
    specialAccountId: fromEnv('VITE_SPECIAL_ACCOUNT_ID', ''),
    showBitrate: debug,
    debugTools: debug,
    serverName: fromEnv('VITE_SERVER_NAME', 'digital-human'),
  };
}

export function environmentFor(name: EnvName): EnvironmentConfig {
  switch (name) {
    case 'local':
      return {
        name,
        userServiceUrl: '',
        routingServiceUrl: '',
        liveServiceUrl: '',
        mediaServerUrl: null,
        // The stand-in's TURN relay comes with each session's route, with a time-limited
        // credential of its own (server/turn.ts); nothing fixed is built in.
        iceServers: [],
        iceTransportPolicy: transportPolicyFor(name, location.search),
        speechHost: sameOriginWs(),
        specialAccountId: 'gov',
        showBitrate: false,
        debugTools: true,
        serverName: 'standin',
      };
    case 'debug':
      return remote(name, true);
    case 'test':
    case 'pre':
    case 'product':
      return remote(name, false);
  }
}

export const environment: EnvironmentConfig = environmentFor(__APP_ENV__);
export const APP_VERSION: string = __APP_VERSION__;
