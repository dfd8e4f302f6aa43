import { buffers, eventChannel, type EventChannel } from 'redux-saga';
import type { PeerEvent, WhepConnection } from '../../services/whep.ts';

/** The connection-state and ICE-error events of one WHEP peer connection; few and all meaningful, so none is dropped. */
export function peerChannel(connection: WhepConnection): EventChannel<PeerEvent> {
  return eventChannel<PeerEvent>((emit) => connection.subscribe(emit), buffers.expanding(16));
}
