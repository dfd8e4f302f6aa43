import { buffers, eventChannel, type EventChannel } from 'redux-saga';
import type { RemoteMediaHolder } from '../../services/remoteMedia.ts';

/**
 * Says that the avatar's stream changed (a media reconnect replaced it); the taker reads
 * the current one from the holder. Only the newest change matters, so one is kept.
 */
export function avatarStreamChannel(remoteMedia: RemoteMediaHolder): EventChannel<true> {
  return eventChannel<true>((emit) => remoteMedia.subscribe(() => emit(true)), buffers.sliding(1));
}
