/**
 * What the sentences' outputs (features/voice/sentences.ts) come to, as a call's effects:
 * the visitor's messages, breaks, partial text, toasts and stray phrases; and the VAD
 * thresholds for an avatar speaking with no echo gate to hear it. Pure: the call's machine
 * (callMachine.ts) releases the outputs at the end of each event, the saga carries out the effects.
 */
import { catalogue } from '../../notices/messages.ts';
import { toastShown, type NoticeMessage } from '../../notices/noticesSlice.ts';
import { sendRequested } from '../../signaling/signalingActions.ts';
import { avatarEcho, wordsOf } from '../echo.ts';
import { joinPhrases, type DiscardReason, type SentenceOutput } from '../sentences.ts';
import { partialRecognized, sentenceRecognized } from '../voiceSlice.ts';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS, type VadThresholds } from '../workers/vad/frameProcessor.ts';
import type { Lang } from '../../locale/localeSlice.ts';
import { EARLY_PHRASE_MS } from './callState.ts';
import { avatarVoice, logged, put, type Moving } from './callStep.ts';

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
 * A sentence the VAD ended without any words recognized says so; a misfire (a sound too
 * short to be speech) or a sentence cut short by mute, hang-up or a language change does not.
 */
export function discardNotice(reason: DiscardReason): NoticeMessage | null {
  return reason === 'nothing recognized' ? { id: catalogue.notRecognized.id } : null;
}

const ECHO_LOG = {
  // The gate let the visitor's voice through to voice detection, which heard no sentence:
  // what the recognizer heard was the avatar (measured in bench/echo.mjs).
  gate: "a phrase heard outside any sentence while the echo gate was on: dropped as the avatar's echo",
  words: 'a phrase heard outside any sentence repeats the avatar: dropped as echo',
} as const;

/**
 * A phrase the recognizer finalised while voice detection heard no sentence: while the
 * avatar speaks the VAD is deliberately hard of hearing, so this is either the visitor
 * talking over the avatar or the avatar's own echo (echo.ts avatarEcho). The visitor's
 * words become their message (interrupting the avatar first); the avatar's are dropped,
 * and the session log says so.
 */
function strayPhrase(m: Moving, text: string): Moving {
  // A stray phrase comes out EARLY_PHRASE_MS after the recognizer finished it: judged as of then.
  const echo = avatarEcho('stray', text, m.env.now - EARLY_PHRASE_MS, avatarVoice(m.s), m.env.avatarSaid);
  if (echo) return logged(m, 'info', ECHO_LOG[echo], { words: wordsOf(text).length });
  const said = logged(m, 'info', 'a phrase heard outside any sentence is the visitor talking over the avatar: sent');
  return put(put(said, sendRequested({ type: 'break' })), sentenceRecognized({ msgId: m.env.newId(), text }));
}

/**
 * One output's effects. `interrupt` interrupts the avatar: `hold` lets the avatar's voice
 * region hold its voice in the page if it speaks (callRegions.ts), then a break goes up.
 */
export function outputEffects(m: Moving, output: SentenceOutput, lang: Lang, hold: (m: Moving) => Moving): Moving {
  const interrupt = (at: Moving) => put(hold(at), sendRequested({ type: 'break' }));
  switch (output.type) {
    case 'interrupt':
      return interrupt(m);
    case 'resumed':
      // No break: the sentence's start already sent one, and nothing has been answered since.
      return logged(m, 'info', 'the visitor went on after a pause: the same sentence', { pausedMs: Math.round(output.pausedMs) });
    case 'partial':
      return put(m, partialRecognized({ msgId: output.msgId, text: output.text, mode: 'call' }));
    case 'complete': {
      // Sending interrupts first, as typing does. The break at this sentence's start came
      // too early for a reply that began after it: one to the sentence before, whose words
      // the recognizer finished only while the visitor was already saying this one.
      const before = m.voice.replyId !== null ? interrupt(m) : m;
      return put(before, sentenceRecognized({ msgId: output.msgId, text: joinPhrases(output.phrases, lang) }));
    }
    case 'discarded': {
      const said = logged(m, 'debug', 'sentence without words', { reason: output.reason });
      const notice = discardNotice(output.reason);
      return notice ? put(said, toastShown(notice)) : said;
    }
    case 'stray':
      return strayPhrase(m, output.text);
  }
}
