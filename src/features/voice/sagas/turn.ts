/**
 * A voice turn on the signaling channel (PROTOCOL.md), in the specification's order:
 * the visitor's words go up as `asrcallback` partials (end_point false) while the
 * recognizer hears them (in a call as they come; held to talk, only the release sends
 * them, since sliding up may still cancel), the recognizer's final wording last of all;
 * the server answers with `asr_end` when it considers the turn's recognition over;
 * then the client sends the sentence as `nlpmsg` and closes the turn with an
 * `asrcallback` whose end_point is true. The server echoes the nlpmsg (`asr`) and
 * answers it like typed text.
 *
 * A server may send `asr_end` before the recognizer's final sentence (it cannot know
 * when the visitor stops talking): the turn then goes on at once when the sentence
 * comes, and no more partials go up for it. A server that never sends `asr_end` costs
 * the turn ASR_END_TIMEOUT_MS, after which the nlpmsg goes anyway.
 *
 * The sentence is shown in the chat log at once, like typed text (chat slice's
 * ownMessageAdded), and from the nlpmsg on it takes the chat's path: the asr echo
 * confirms it, and a send on a closed channel marks it failed and keeps the words.
 * The avatar was already interrupted when the visitor started to speak; a reply that began
 * since (to the visitor's sentence before) is interrupted before the nlpmsg goes up.
 */
import type { Action } from '@reduxjs/toolkit';
import { delay, put, race, select, take, takeEvery } from 'typed-redux-saga';
import { ownMessageAdded } from '../../chat/chatSlice.ts';
import { selectLang } from '../../locale/localeSlice.ts';
import { selectSessionStatus, selectSignalingState } from '../../session/sessionSlice.ts';
import { messageReceived, sendRequested } from '../../signaling/signalingActions.ts';
import { partialRecognized, selectReplyUnderWay, sentenceRecognized } from '../voiceSlice.ts';
import { createLogger } from '../../../services/logger.ts';
import { isSessionOver } from './resources.ts';

const log = createLogger('voice');

/** How long the server may take to answer a turn's final wording with asr_end before the nlpmsg goes anyway. */
export const ASR_END_TIMEOUT_MS = 3000;
/** Turns whose asr_end is remembered: a few sentences back is plenty, and the set stays small. */
const ENDED_TURNS_KEPT = 20;

/** The turn an asr_end command ends, or null for any other action. */
function asrEndOf(a: Action): string | null {
  if (!messageReceived.match(a)) return null;
  const message = a.payload;
  return message.msg_type === 'command' && message.command === 'asr_end' && typeof message.msg_id === 'string' ? message.msg_id : null;
}
const isAsrEnd = (a: Action) => asrEndOf(a) !== null;
const isAsrEndFor = (msgId: string) => (a: Action) => asrEndOf(a) === msgId;

function* canSend() {
  return (yield* select(selectSessionStatus)) === 'live' && (yield* select(selectSignalingState)) === 'open';
}

export function* voiceTurnWatcher() {
  /** The last wording sent, so the recognizer's repeats go up once. */
  let last = { msgId: '', text: '' };
  /** Turns the server has ended with asr_end, newest last. */
  const ended: string[] = [];

  function* sendPartial(msgId: string, text: string) {
    if (text === '' || ended.includes(msgId) || (last.msgId === msgId && last.text === text)) return;
    last = { msgId, text };
    const lang = yield* select(selectLang);
    yield* put(sendRequested({ type: 'message_text', source: 'asrcallback', text, end_point: false, data: { msg_id: msgId, lang } }));
  }

  function* onPartial(action: ReturnType<typeof partialRecognized>) {
    const { msgId, mode } = action.payload;
    // Held to talk, the words are not the visitor's to share until the release sends them.
    if (mode === 'hold' || !(yield* canSend())) return;
    yield* sendPartial(msgId, action.payload.text.trim());
  }

  function onAsrEnd(action: Action) {
    const msgId = asrEndOf(action);
    if (msgId === null || ended.includes(msgId)) return;
    ended.push(msgId);
    if (ended.length > ENDED_TURNS_KEPT) ended.shift();
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
    if ((yield* canSend()) && !ended.includes(msgId)) {
      yield* sendPartial(msgId, text);
      const answer = yield* race({ ended: take(isAsrEndFor(msgId)), timeout: delay(ASR_END_TIMEOUT_MS), over: take(isSessionOver) });
      if (answer.over) return;
      if (answer.timeout) log.warn('no asr_end for a voice sentence; sending it anyway', { msgId });
    }
    // Sending interrupts first, as typing does: a reply that began while the turn waited
    // (to the visitor's sentence before this one) is cut before this one goes up.
    if (yield* select(selectReplyUnderWay)) yield* put(sendRequested({ type: 'break' }));
    yield* put(sendRequested({ type: 'message_text', source: 'nlpmsg', text, data }));
    if (yield* canSend()) yield* put(sendRequested({ type: 'message_text', source: 'asrcallback', text, end_point: true, data }));
  }

  yield* takeEvery(isAsrEnd, onAsrEnd);
  yield* takeEvery(partialRecognized.match, onPartial);
  yield* takeEvery(sentenceRecognized.match, runVoiceTurn);
}
