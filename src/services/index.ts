/**
 * The real adapters, as the sagas get them (saga context). main.tsx calls
 * createServices() once and passes the result to makeStore.
 */
import { APP_VERSION, environment } from '../app/environments.ts';
import type { SagaServices } from '../sagas/context.ts';
import { createAccountService } from './account.ts';
import { earlyFetch } from './earlyRequest.ts';
import { createHttp } from './http.ts';
import { createLiveService } from './live.ts';
import { createLivePeerHolder } from './livePeer.ts';
import { createBrowserPlatform } from './platform.ts';
import { remoteMedia } from './remoteMedia.ts';
import { createSocketService } from './socket.ts';
import { createBrowserStorage } from './storage.ts';
import { createStreamsService } from './streams.ts';
import { createVoiceService } from './voice.ts';
import { createWhepService } from './whep.ts';

export function createServices(): SagaServices {
  // The first /ue/userinfo may already be on its way (src/early.ts): the client takes its answer.
  const http = createHttp({ fetch: earlyFetch() });
  const livePeer = createLivePeerHolder();
  return {
    account: createAccountService(http, { userServiceUrl: environment.userServiceUrl, version: APP_VERSION }),
    live: createLiveService(http, environment),
    streams: createStreamsService(http),
    whep: createWhepService({ http, iceServers: environment.iceServers, iceTransportPolicy: environment.iceTransportPolicy }),
    socket: createSocketService(),
    storage: createBrowserStorage(),
    platform: createBrowserPlatform(),
    remoteMedia,
    livePeer,
    // The stats sampler reads whichever peer connection the media saga made current.
    statsSource: livePeer,
    voice: createVoiceService({ speechHost: environment.speechHost }),
  };
}
