/**
 * Voice input: hold to talk (voiceHold.ts), hands-free calls (voiceCall.ts), the voice
 * turn on the signaling channel (voiceTurn.ts), and warming the voice assets.
 *
 * The assets (Speech SDK chunk, worker, worklet, model, wasm) are fetched once Start
 * chat is tapped, while the session connects: never on the pre-session path, whose
 * first paint must stay light, and early enough that the first call starts from cache.
 */
import { all, call, fork, takeEvery } from 'typed-redux-saga';
import { startRequested } from '../features/session/sessionSlice.ts';
import { services } from './context.ts';
import { callWatcher } from './voiceCall.ts';
import { holdWatcher } from './voiceHold.ts';
import { voiceTurnWatcher } from './voiceTurn.ts';

function* prefetchVoice() {
  const { voice } = yield* services();
  yield* call(voice.prefetch);
}

export function* voiceSaga() {
  yield* all([
    fork(holdWatcher),
    fork(callWatcher),
    fork(voiceTurnWatcher),
    takeEvery(startRequested.match, prefetchVoice),
  ]);
}
