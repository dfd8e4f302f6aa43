import { getContext } from 'typed-redux-saga';
import type { AccountService } from '../services/account.ts';
import type { LiveService } from '../services/live.ts';
import type { LivePeerHolder } from '../services/livePeer.ts';
import type { PlatformService } from '../services/platform.ts';
import type { RemoteMediaHolder } from '../services/remoteMedia.ts';
import type { SocketService } from '../services/socket.ts';
import type { StatsSource } from './stats.ts';
import type { KeyValueStorage } from '../services/storage.ts';
import type { StreamsService } from '../services/streams.ts';
import type { VoiceService } from '../features/voice/services/service.ts';
import type { WhepService } from '../services/whep.ts';

/**
 * The outside world, as sagas see it. Production builds pass the real adapters
 * (src/services, createCoreServices() from the first chunk, createLiveServices() from
 * the live chunk once it is here: liveLoader.ts); saga tests pass fakes of all of them
 * up front. Sagas never import a service module's instances directly.
 */
export interface CoreServices {
  account: AccountService;
  storage: KeyValueStorage;
  platform: PlatformService;
}

/** The services of the live session; only the live chunk's sagas use them. */
export interface LiveServices {
  live: LiveService;
  streams: StreamsService;
  whep: WhepService;
  socket: SocketService;
  remoteMedia: RemoteMediaHolder;
  /** Written by the media saga; createLiveServices() gives the same object as statsSource. */
  livePeer: LivePeerHolder;
  statsSource: StatsSource;
  /** Microphone pipeline, speech recognizer and the voice assets' prefetch. */
  voice: VoiceService;
}

export interface SagaServices extends CoreServices, LiveServices {}

/** Every service: for the live chunk's sagas, which run once the live services are in the context. */
export function* services() {
  return yield* getContext<SagaServices>('services');
}

/** The services that are there from the first frame: for the pre-session sagas (boot, visibility, the live loader). */
export function* coreServices() {
  return yield* getContext<CoreServices>('services');
}
