/**
 * The visitor's side of the conversation (PROTOCOL.md): typed text, tapped
 * suggestions and resends all go out the same way — `break` first (the avatar
 * stops talking and a playing video pauses), the message shown at once, then
 * `message_text` with source nlpmsg and the client's msg_id, which the server's
 * asr echo confirms. A send on a closed channel marks the message failed, puts
 * the text back into the text box and warns. A resend with nothing to send again says
 * "no content replay available at the moment". Inline videos report play start/end.
 */
import { put, select, takeEvery } from 'typed-redux-saga';
import {
  ownMessageAdded,
  resendRequested,
  suggestionTapped,
  videoStarted,
  videoStopped,
} from '../features/chat/chatSlice.ts';
import { cleanTakenText, keyOf, MAX_PARTS, messageText, type ChatMessage } from '../features/chat/model.ts';
import { selectMessageByKey } from '../features/chat/selectors.ts';
import { draftRestored, textSubmitted } from '../features/input/inputSlice.ts';
import { selectLang } from '../features/locale/localeSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { toastShown } from '../features/notices/noticesSlice.ts';
import { messageReceived, sendFailed, sendRequested } from '../features/signaling/signalingActions.ts';
import { createLogger } from '../services/logger.ts';
import { services } from './context.ts';

const log = createLogger('chat');

/** Sends the visitor's text as a new message; empty or whitespace-only text is not sent. */
export function* sendVisitorText(raw: string) {
  const text = raw.trim();
  if (text === '') return;
  const { platform } = yield* services();
  yield* put(sendRequested({ type: 'break' }));
  const msgId = platform.randomUUID();
  yield* put(ownMessageAdded({ msgId, text }));
  const lang = yield* select(selectLang);
  yield* put(sendRequested({ type: 'message_text', source: 'nlpmsg', text, data: { msg_id: msgId, lang } }));
}

/**
 * The text a resend of `message` sends: its words, line breaks removed and trimmed; '' when
 * there is nothing to send again (the message is gone, or had no words).
 */
export function replayText(message: ChatMessage | undefined): string {
  return message ? cleanTakenText(messageText(message)) : '';
}

function* onResend(action: ReturnType<typeof resendRequested>) {
  const message = yield* select(selectMessageByKey, action.payload);
  // Only the visitor's own messages can be resent (docs/requirements.md R63).
  if (message && !message.fromMe) {
    log.warn('resend refused: not a visitor message', { key: action.payload });
    return;
  }
  const text = replayText(message);
  if (text === '') {
    log.info('resend: nothing to send again', { key: action.payload, found: message !== undefined });
    yield* put(toastShown({ id: catalogue.noReplay.id }));
    return;
  }
  yield* sendVisitorText(text);
}

function* onSendFailed(action: ReturnType<typeof sendFailed>) {
  const request = action.payload.request;
  if (request.type !== 'message_text' || request.source !== 'nlpmsg') return;
  // Only messages this saga added; a voice turn's own failure is the voice feature's to report.
  const message = yield* select(selectMessageByKey, keyOf(true, request.data.msg_id));
  if (message?.status !== 'failed') return;
  log.warn('message not sent: the channel is closed', { msgId: request.data.msg_id });
  yield* put(draftRestored(request.text));
  yield* put(toastShown({ id: catalogue.sendWhileClosed.id }));
}

function* reportPlay(msgId: string, state: 'start' | 'end') {
  yield* put(sendRequested({ type: 'play', data: { msg_id: msgId, state } }));
}

/** One line per message that overflowed, not one per dropped part. */
function createOverflowLogger() {
  const reported = new Set<string>();
  return function* onTts(action: ReturnType<typeof messageReceived>) {
    const frame = action.payload;
    if (frame.msg_type !== 'tts' || reported.has(frame.msg_id)) return;
    const message = yield* select(selectMessageByKey, keyOf(false, frame.msg_id));
    if (!message || message.msgArr.length < MAX_PARTS) return;
    if (reported.size > 100) reported.clear();
    reported.add(frame.msg_id);
    log.warn('reply has too many parts; later parts are dropped', { msgId: frame.msg_id, max: MAX_PARTS });
  };
}

export function* chatSaga() {
  yield* takeEvery(textSubmitted.match, function* onSubmit(action) {
    yield* sendVisitorText(action.payload);
  });
  yield* takeEvery(suggestionTapped.match, function* onSuggestion(action) {
    yield* sendVisitorText(cleanTakenText(action.payload));
  });
  yield* takeEvery(resendRequested.match, onResend);
  yield* takeEvery(sendFailed.match, onSendFailed);
  yield* takeEvery(videoStarted.match, (action) => reportPlay(action.payload.msgId, 'start'));
  yield* takeEvery(videoStopped.match, (action) => reportPlay(action.payload.msgId, 'end'));
  yield* takeEvery(messageReceived.match, createOverflowLogger());
}
