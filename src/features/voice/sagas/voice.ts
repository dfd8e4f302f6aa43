/**
 * Voice input: hold to talk (hold.ts), hands-free calls (call.ts), the voice
 * turn on the signaling channel (turn.ts), and getting calls ready ahead of time.
 *
 * The assets (Speech SDK chunk, worker, worklet, model, wasm) are fetched once the first
 * session's avatar plays: never on the pre-session path, whose first paint must stay
 * light, nor while the session connects, whose network and CPU belong to the start.
 * Then, for an account that can make calls, the voice detector is loaded in its worker
 * and kept for the session's calls (features/voice/services/detectorKeeper.ts): loading it takes seconds
 * on a slow phone, which would otherwise leave every call's first seconds without voice
 * detection (the recognizer alone marks the sentences until it joins). It is released
 * when the session ends. A call or a hold started before that loads what it needs itself.
 */
import { all, call, fork, race, select, take } from 'typed-redux-saga';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import { videoPlaying } from '../../session/sessionSlice.ts';
import { services } from '../../../sagas/context.ts';
import { callWatcher } from './call.ts';
import { holdWatcher } from './hold.ts';
import { isSessionOver } from './resources.ts';
import { voiceTurnWatcher } from './turn.ts';

function* readyCalls() {
  const { voice } = yield* services();
  for (;;) {
    yield* take(videoPlaying.match);
    const { over } = yield* race({ fetched: call(voice.prefetch), over: take(isSessionOver) });
    if (!over) {
      if ((yield* select(selectAccountInfo))?.asr) voice.warmDetector();
      yield* take(isSessionOver);
    }
    yield* call(voice.releaseDetector);
  }
}

export function* voiceSaga() {
  yield* all([
    fork(holdWatcher),
    fork(callWatcher),
    fork(voiceTurnWatcher),
    fork(readyCalls),
  ]);
}
