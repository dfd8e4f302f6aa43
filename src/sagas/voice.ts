/**
 * Voice input: hold to talk (voiceHold.ts), hands-free calls (voiceCall.ts), the voice
 * turn on the signaling channel (voiceTurn.ts), and warming the voice assets.
 *
 * The assets (Speech SDK chunk, worker, worklet, model, wasm: a few MB) are fetched once
 * the first session's avatar has greeted (its first nlp_end, or 8 s after it started to
 * play): never on the pre-session path, whose first paint must stay light, nor while the
 * session connects or the greeting streams, whose bandwidth belongs to the avatar. A call
 * or a hold started before that loads what it needs itself.
 */
import type { Action } from '@reduxjs/toolkit';
import { all, call, delay, fork, race, take } from 'typed-redux-saga';
import { sessionEnded, sessionEnding, videoPlaying } from '../features/session/sessionSlice.ts';
import { messageReceived } from '../features/signaling/signalingActions.ts';
import { services } from './context.ts';
import { callWatcher } from './voiceCall.ts';
import { holdWatcher } from './voiceHold.ts';
import { voiceTurnWatcher } from './voiceTurn.ts';

export const PREFETCH_AFTER_PLAY_MS = 8000;

const isReplyEnd = (a: Action) => messageReceived.match(a) && a.payload.msg_type === 'command' && a.payload.command === 'nlp_end';

const isSessionOver = (a: Action) => sessionEnding.match(a) || sessionEnded.match(a);

function* prefetchVoice() {
  for (;;) {
    yield* take(videoPlaying.match);
    // A session that ends before its greeting does leaves no timer behind; the next one tries again.
    const { over } = yield* race({ greeted: take(isReplyEnd), later: delay(PREFETCH_AFTER_PLAY_MS), over: take(isSessionOver) });
    if (over) continue;
    const { voice } = yield* services();
    yield* call(voice.prefetch);
    return;
  }
}

export function* voiceSaga() {
  yield* all([
    fork(holdWatcher),
    fork(callWatcher),
    fork(voiceTurnWatcher),
    fork(prefetchVoice),
  ]);
}
