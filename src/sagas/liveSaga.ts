/**
 * The live session's sagas: starting and ending sessions, the signaling channel, the
 * stats sampler, the chat and the voice input. They come with the live chunk
 * (src/live/index.tsx), which the pre-session screen fetches while the visitor reads it
 * (liveLoader.ts); the pre-session sagas (boot, visibility) run from the first frame.
 */
import { all, fork } from 'typed-redux-saga';
import { chatSaga } from './chat.ts';
import { keepAlive } from './keepAlive.ts';
import { sessionWatcher } from './session.ts';
import { signalingSendWatcher } from './signaling.ts';
import { createSignalingLink } from './signalingLink.ts';
import { statsSaga } from './stats.ts';
import { voiceSaga } from './voice.ts';

export interface LiveSagaOptions {
  /** Start chat was tapped before these sagas ran: the session starts at once if it is still wanted. */
  startPending: boolean;
}

export function* liveSaga({ startPending }: LiveSagaOptions) {
  const link = createSignalingLink();
  yield* all([
    fork(keepAlive, 'session', sessionWatcher, link, startPending),
    fork(keepAlive, 'signaling', signalingSendWatcher, link),
    fork(keepAlive, 'stats', statsSaga),
    fork(keepAlive, 'chat', chatSaga),
    fork(keepAlive, 'voice', voiceSaga),
  ]);
}
