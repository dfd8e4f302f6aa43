/**
 * What a call's conversation does with the sentence machine's outputs (features/voice/
 * sentences.ts): the visitor's messages, breaks, partial text, toasts and stray phrases;
 * and the VAD thresholds for an avatar speaking with no echo gate to hear it.
 */
import { select, call, put } from 'typed-redux-saga';
import type { Lang } from '../../locale/localeSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import { toastShown, type NoticeMessage } from '../../notices/noticesSlice.ts';
import { sendRequested } from '../../signaling/signalingActions.ts';
import { selectRecentAvatarTexts } from '../../chat/selectors.ts';
import { isEchoOf, wordsOf } from '../echo.ts';
import { joinPhrases, type DiscardReason, type SentenceOutput } from '../sentences.ts';
import { partialRecognized, selectAvatarActivity, selectReplyUnderWay, sentenceRecognized } from '../voiceSlice.ts';
import { createLogger } from '../../../services/logger.ts';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS, type VadThresholds } from '../workers/vad/frameProcessor.ts';
import { services } from '../../../sagas/context.ts';

const log = createLogger('voice');

/** The VAD's positive threshold while the avatar speaks (0.9 otherwise). */
export const AVATAR_SPEAKING_POSITIVE_THRESHOLD = 0.97;

export function thresholdsFor(avatarSpeaking: boolean): Partial<VadThresholds> {
  return {
    positiveSpeechThreshold: avatarSpeaking
      ? AVATAR_SPEAKING_POSITIVE_THRESHOLD
      : DEFAULT_FRAME_PROCESSOR_OPTIONS.positiveSpeechThreshold,
  };
}

/**
 * A phrase the recognizer finalised while voice detection heard no sentence: while the
 * avatar speaks the VAD is deliberately hard of hearing, so this is either the visitor
 * talking over the avatar or the avatar's own echo. The visitor's words become their
 * message (interrupting the avatar first); the avatar's are dropped, and the session log
 * says so.
 */
function* sendStrayPhrase(text: string, avatarEchoes: boolean) {
  const { platform } = yield* services();
  if (avatarEchoes) {
    // The gate let the visitor's voice through to voice detection, which heard no sentence:
    // what the recognizer heard was the avatar (measured in bench/echo.mjs).
    log.info('a phrase heard outside any sentence while the echo gate was on: dropped as the avatar\'s echo', { words: wordsOf(text).length });
    return;
  }
  if (isEchoOf(text, yield* select(selectRecentAvatarTexts))) {
    log.info('a phrase heard outside any sentence repeats the avatar: dropped as echo', { words: wordsOf(text).length });
    return;
  }
  log.info('a phrase heard outside any sentence is the visitor talking over the avatar: sent');
  const msgId = platform.randomUUID();
  yield* put(sendRequested({ type: 'break' }));
  yield* put(sentenceRecognized({ msgId, text }));
}

/**
 * A sentence the VAD ended without any words recognized says so; a misfire (a sound too
 * short to be speech) or a sentence cut short by mute, hang-up or a language change does not.
 */
export function discardNotice(reason: DiscardReason): NoticeMessage | null {
  return reason === 'nothing recognized' ? { id: catalogue.notRecognized.id } : null;
}

export interface Actions {
  /** Whether the echo gate is on and the avatar speaks, or spoke within ECHO_TAIL_MS. */
  avatarEchoes(): boolean;
  /** Holds the avatar's voice in the page (until its next reply). */
  hold(): void;
}

/** Interrupts the avatar: its voice is held in the page at once (its echo would garble the visitor's words), and a break goes up. */
function* interrupt(voice: Actions) {
  if ((yield* select(selectAvatarActivity)) === 'speaking') voice.hold();
  yield* put(sendRequested({ type: 'break' }));
}

export function* act(outputs: SentenceOutput[], lang: Lang, voice: Actions) {
  for (const output of outputs) {
    switch (output.type) {
      case 'interrupt':
        yield* call(interrupt, voice);
        break;
      case 'partial':
        yield* put(partialRecognized({ msgId: output.msgId, text: output.text, mode: 'call' }));
        break;
      case 'complete':
        // Sending interrupts first, as typing does. The break at this sentence's start came
        // too early for a reply that began after it: one to the sentence before, whose words
        // the recognizer finished only while the visitor was already saying this one.
        if (yield* select(selectReplyUnderWay)) yield* call(interrupt, voice);
        yield* put(sentenceRecognized({ msgId: output.msgId, text: joinPhrases(output.phrases, lang) }));
        break;
      case 'discarded': {
        log.debug('sentence without words', { reason: output.reason });
        const notice = discardNotice(output.reason);
        if (notice) yield* put(toastShown(notice));
        break;
      }
      case 'stray':
        yield* call(sendStrayPhrase, output.text, voice.avatarEchoes());
        break;
    }
  }
}
