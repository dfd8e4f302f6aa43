/**
 * The real adapters of the live session, created when the live chunk arrives
 * (sagas/liveLoader.ts joins them to the first chunk's services in the saga context).
 */
import { environment } from '../app/environments.ts';
import type { LiveServices } from '../sagas/context.ts';
import { createHttp } from './http.ts';
import { createLiveService } from './live.ts';
import { createLivePeerHolder } from './livePeer.ts';
import { remoteMedia } from './remoteMedia.ts';
import { createSocketService } from './socket.ts';
import { createStreamsService } from './streams.ts';
import { createVoiceService } from '../features/voice/services/service.ts';
import { createWhepService } from './whep.ts';

export function createLiveServices(): LiveServices {
  const http = createHttp();
  const livePeer = createLivePeerHolder();
  return {
    live: createLiveService(http, environment),
    streams: createStreamsService(http),
    whep: createWhepService({ http, iceServers: environment.iceServers, iceTransportPolicy: environment.iceTransportPolicy }),
    socket: createSocketService(),
    remoteMedia,
    livePeer,
    // The stats sampler reads whichever peer connection the media saga made current.
    statsSource: livePeer,
    voice: createVoiceService({ speechHost: environment.speechHost }),
  };
}
