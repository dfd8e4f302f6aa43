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
import type { VoiceService } from '../services/voice.ts';
import type { WhepService } from '../services/whep.ts';

/**
 * The outside world, as sagas see it. Production builds pass the real adapters
 * (src/services, createServices()); saga tests pass fakes. Sagas never import a
 * service module's instances directly.
 */
export interface SagaServices {
  account: AccountService;
  live: LiveService;
  streams: StreamsService;
  whep: WhepService;
  socket: SocketService;
  storage: KeyValueStorage;
  platform: PlatformService;
  remoteMedia: RemoteMediaHolder;
  /** Written by the media saga; createServices() gives the same object as statsSource. */
  livePeer: LivePeerHolder;
  statsSource: StatsSource;
  /** Microphone pipeline, speech recognizer and the voice assets' prefetch. */
  voice: VoiceService;
}

export function* services() {
  return yield* getContext<SagaServices>('services');
}
