/**
 * The live session's sagas: starting and ending sessions, the signaling channel, the
 * stats sampler, the chat and the voice input. They come with the live chunk
 * (src/live/index.ts), which the pre-session screen fetches while the visitor reads it
 * (liveLoader.ts); the pre-session sagas (boot, visibility) run from the first frame.
 */
import { all, fork } from 'typed-redux-saga';
import { chatSaga } from './chat.ts';
import { keepAlive } from './keepAlive.ts';
import { sessionWatcher } from './session.ts';
import { signalingSendWatcher } from './signaling.ts';
import { createSignalingLink } from './signalingLink.ts';
import { statsSaga } from './stats.ts';
import { voiceSaga } from '../features/voice/sagas/voice.ts';

export interface LiveSagaOptions {
  /**
   * Start chat was tapped this long (ms) before these sagas ran, and the start still waits:
   * the session starts at once, with what is left of its 15 s. Null when no start waits.
   */
  pendingForMs: number | null;
}

export function* liveSaga({ pendingForMs }: LiveSagaOptions) {
  const link = createSignalingLink();
  yield* all([
    fork(keepAlive, 'session', sessionWatcher, link, pendingForMs),
    fork(keepAlive, 'signaling', signalingSendWatcher, link),
    fork(keepAlive, 'stats', statsSaga),
    fork(keepAlive, 'chat', chatSaga),
    fork(keepAlive, 'voice', voiceSaga),
  ]);
}
