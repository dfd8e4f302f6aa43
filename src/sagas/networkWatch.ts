/**
 * For as long as a session runs, the browser's own signs that its network changed (back
 * online, a new connection type) become networkChangeSuspected: the signaling channel then
 * checks its socket at once (signaling.ts) and the media reconnects without waiting once it
 * goes quiet (media.ts). A phone moving from Wi-Fi to cellular keeps sockets on an address
 * it no longer has; nothing else would tell the app for minutes.
 */
import { eventChannel } from 'redux-saga';
import { put, take } from 'typed-redux-saga';
import { networkChangeSuspected, type NetworkHint } from '../features/session/sessionSlice.ts';
import { createLogger } from '../services/logger.ts';
import { coreServices } from './context.ts';

const log = createLogger('network');

export function* watchNetwork() {
  const { platform } = yield* coreServices();
  const chan = eventChannel<NetworkHint>((emit) => platform.onNetworkChange(emit));
  try {
    for (;;) {
      const hint = yield* take(chan);
      log.info('the network changed', { hint });
      yield* put(networkChangeSuspected(hint));
    }
  } finally {
    chan.close();
  }
}
