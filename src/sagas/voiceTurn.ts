/**
 * A voice turn on the signaling channel (PROTOCOL.md): partial words of a call go
 * up as `asrcallback` with end_point false (hold to talk keeps them until release); a complete sentence as `asrcallback` with
 * end_point true; the server's `asr_end` then asks for the `nlpmsg` with the same
 * msg_id, which the server echoes (`asr`) and answers like typed text.
 *
 * The sentence is shown in the chat log at once, like typed text (chat slice's
 * ownMessageAdded), and from the nlpmsg on it takes the chat's path: the asr echo
 * confirms it, and a send on a closed channel marks it failed and keeps the words.
 * The avatar was already interrupted when the visitor started to speak.
 */
import type { Action } from '@reduxjs/toolkit';
import { delay, put, race, select, take, takeEvery } from 'typed-redux-saga';
import { ownMessageAdded } from '../features/chat/chatSlice.ts';
import { selectLang } from '../features/locale/localeSlice.ts';
import { selectSessionStatus, selectSignalingState } from '../features/session/sessionSlice.ts';
import { messageReceived, sendRequested } from '../features/signaling/signalingActions.ts';
import { partialRecognized, sentenceRecognized } from '../features/voice/voiceSlice.ts';
import { createLogger } from '../services/logger.ts';
import { isSessionOver } from './voiceResources.ts';

const log = createLogger('voice');

/** How long the server may take to answer end_point with asr_end before the nlpmsg goes anyway. */
export const ASR_END_TIMEOUT_MS = 3000;

const isAsrEndFor = (msgId: string) => (a: Action) =>
  messageReceived.match(a) && a.payload.msg_type === 'command' && a.payload.command === 'asr_end' && a.payload.msg_id === msgId;
function* canSend() {
  return (yield* select(selectSessionStatus)) === 'live' && (yield* select(selectSignalingState)) === 'open';
}

/** One frame per new hypothesis: the recognizer repeats itself, the server needs each wording once. */
function createPartialSender() {
  let last = { msgId: '', text: '' };
  return function* sendPartial(action: ReturnType<typeof partialRecognized>) {
    const { msgId, text, mode } = action.payload;
    // Held to talk, the words are not the visitor's to share until the release sends them.
    if (mode === 'hold' || text.trim() === '' || (last.msgId === msgId && last.text === text)) return;
    last = { msgId, text };
    if (!(yield* canSend())) return;
    const lang = yield* select(selectLang);
    yield* put(sendRequested({ type: 'message_text', source: 'asrcallback', text, end_point: false, data: { msg_id: msgId, lang } }));
  };
}

function* runVoiceTurn(action: ReturnType<typeof sentenceRecognized>) {
  const { msgId } = action.payload;
  const text = action.payload.text.trim();
  if (text === '') return;
  if ((yield* select(selectSessionStatus)) !== 'live') {
    log.info('voice sentence dropped: the session is not live');
    return;
  }
  const lang = yield* select(selectLang);
  const data = { msg_id: msgId, lang };
  yield* put(ownMessageAdded({ msgId, text }));
  // On a closed channel the nlpmsg goes straight away, so the chat's closed-channel handling applies.
  if (yield* canSend()) {
    yield* put(sendRequested({ type: 'message_text', source: 'asrcallback', text, end_point: true, data }));
    const answer = yield* race({ ended: take(isAsrEndFor(msgId)), timeout: delay(ASR_END_TIMEOUT_MS), over: take(isSessionOver) });
    if (answer.over) return;
    if (answer.timeout) log.warn('no asr_end for a voice sentence; sending it anyway', { msgId });
  }
  yield* put(sendRequested({ type: 'message_text', source: 'nlpmsg', text, data }));
}

export function* voiceTurnWatcher() {
  yield* takeEvery(partialRecognized.match, createPartialSender());
  yield* takeEvery(sentenceRecognized.match, runVoiceTurn);
}
