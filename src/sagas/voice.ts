/**
 * Voice input: hold to talk (voiceHold.ts), hands-free calls (voiceCall.ts), the voice
 * turn on the signaling channel (voiceTurn.ts), and warming the voice assets.
 *
 * The assets (Speech SDK chunk, worker, worklet, model, wasm) are fetched once the first
 * session's avatar plays: never on the pre-session path, whose first paint must stay
 * light, nor while the session connects, whose network and CPU belong to the start.
 * A call or a hold started before that loads what it needs itself.
 */
import { all, call, fork, take } from 'typed-redux-saga';
import { videoPlaying } from '../features/session/sessionSlice.ts';
import { services } from './context.ts';
import { callWatcher } from './voiceCall.ts';
import { holdWatcher } from './voiceHold.ts';
import { voiceTurnWatcher } from './voiceTurn.ts';

function* prefetchVoice() {
  yield* take(videoPlaying.match);
  const { voice } = yield* services();
  yield* call(voice.prefetch);
}

export function* voiceSaga() {
  yield* all([
    fork(holdWatcher),
    fork(callWatcher),
    fork(voiceTurnWatcher),
    fork(prefetchVoice),
  ]);
}
