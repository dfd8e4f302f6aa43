/**
 * The hands-free conversation of a call: recognition runs continuously, voice
 * detection (VAD) cuts it into sentences (features/voice/sentences.ts), and every
 * complete sentence becomes the visitor's message (voiceTurn.ts).
 *
 * - A sentence starting interrupts the avatar (break).
 * - Mute pauses the VAD and stops feeding the recognizer.
 * - A language change restarts the recognizer with the new locale and a 500 ms
 *   segmentation silence (1000 ms at call start), docs/requirements.md R108.
 * - The avatar's own voice (bench/echo.mjs measures all of this): echo cancellation keeps
 *   most of it out of the microphone. What leaks through is kept from interrupting the
 *   avatar by the capture worklet's echo gate, given the avatar's received audio: while
 *   the avatar is audible, frames whose microphone level stays more than 18 dB below it
 *   reach voice detection and the recognizer as silence. A phrase the recognizer still
 *   finalises outside any sentence while the avatar speaks (or up to ECHO_TAIL_MS after)
 *   is its echo and is dropped, and the session log says so. The visitor starting to talk
 *   over the avatar holds its voice in the page at once (before the server's answer to the
 *   break), so their words reach the recognizer without the avatar under them. Without the
 *   avatar's audio (no gate), the older guard applies: the VAD's positive threshold goes up
 *   from 0.9 to 0.97 while the avatar speaks, and a stray phrase is sent unless its words
 *   are the avatar's own (features/voice/echo.ts).
 * - A recognizer that fails is restarted after 1, 2 and 4 s; one more failure with no
 *   phrase recognized since the last restart ends the call, saying the speech service
 *   cannot be reached when the connection was the cause (a restart that cannot even
 *   connect counts as that), and with the speech-settings alert otherwise. A phrase
 *   recognized in between means the service works (a long call on a mobile network may
 *   drop now and then), so the count starts again.
 * - A sentence the VAD ended with no words recognized within the wait shows the
 *   "text not recognised" toast.
 * - A microphone that opened but delivers no audio within NO_AUDIO_MS of the call's start
 *   (or of an unmute, while nothing has come yet) ends the call with "unable to record sound".
 * - Another app taking the page's audio (an iOS phone call or Siri: the AudioContext is
 *   'interrupted') pauses the call: recognition stops, voice detection and capture pause,
 *   nothing is asked of the audio until it is back (services/voicePipeline.ts); then the
 *   call listens again with a new recognizer, and the avatar's voice plays again if the
 *   system had paused it.
 */
import type { Action } from '@reduxjs/toolkit';
import { buffers } from 'redux-saga';
import { actionChannel, call, delay, put, race, select, take } from 'typed-redux-saga';
import { callLeft } from '../features/input/inputSlice.ts';
import { langChosen, selectLang, type Lang } from '../features/locale/localeSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { alertShown, toastShown, type NoticeMessage } from '../features/notices/noticesSlice.ts';
import { messageReceived, sendRequested } from '../features/signaling/signalingActions.ts';
import { selectRecentAvatarTexts } from '../features/chat/selectors.ts';
import { isEchoOf, wordsOf } from '../features/voice/echo.ts';
import type { PcmFeed } from '../features/voice/pcmFeed.ts';
import {
  initialSentenceState,
  joinPhrases,
  nextDeadline,
  stepSentences,
  type DiscardReason,
  type SentenceEvent,
  type SentenceOutput,
} from '../features/voice/sentences.ts';
import {
  callAudioBack,
  callAudioLost,
  muteToggled,
  partialRecognized,
  selectAvatarActivity,
  selectMuted,
  sentenceRecognized,
  vadSpeechEnded,
  vadSpeechStarted,
} from '../features/voice/voiceSlice.ts';
import type { AccountInfo } from '../features/account/accountSlice.ts';
import { createLogger } from '../services/logger.ts';
import type { VoiceService } from '../services/voice.ts';
import type { CallPipeline } from '../services/voice.ts';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS, type VadThresholds } from '../workers/vad/frameProcessor.ts';
import { avatarStreamChannel } from './channels/avatarStreamChannel.ts';
import type { VoiceEvents } from './channels/voiceChannel.ts';
import { services } from './context.ts';
import {
  createRecognizerSlot,
  never,
  NO_AUDIO_MS,
  noAudioNotice,
  settle,
  type RecognizerHandle,
  type VoiceScope,
} from './voiceResources.ts';

const log = createLogger('voice');

export const CALL_START_SILENCE_MS = 1000;
export const LANG_CHANGE_SILENCE_MS = 500;
/** How long a sentence the VAD has ended waits for the recognizer's final phrase. */
export const SENTENCE_FINAL_WAIT_MS = 1500;
/** How long a phrase heard before its sentence started (a VAD running late) may wait for it. */
export const EARLY_PHRASE_MS = 2000;
const TIMING = { waitMs: SENTENCE_FINAL_WAIT_MS, earlyMs: EARLY_PHRASE_MS };
/** The VAD's positive threshold while the avatar speaks (0.9 otherwise). */
export const AVATAR_SPEAKING_POSITIVE_THRESHOLD = 0.97;
/**
 * A recognizer that fails is restarted after these waits, one per restart in a row: a
 * network drop of a few seconds (a lift, a tunnel) is ridden out instead of spending every
 * restart at once.
 */
export const RECOGNIZER_RESTART_DELAYS_MS = [1000, 2000, 4000] as const;
export const MAX_RECOGNIZER_RESTARTS = RECOGNIZER_RESTART_DELAYS_MS.length;
/**
 * With the echo gate on, a phrase the recognizer finishes outside any sentence up to this
 * long after the avatar stopped is its echo's tail (the recognizer ends a phrase after its
 * segmentation silence, 1 s in a call, plus the service's latency).
 */
export const ECHO_TAIL_MS = 2500;

export function thresholdsFor(avatarSpeaking: boolean): Partial<VadThresholds> {
  return {
    positiveSpeechThreshold: avatarSpeaking
      ? AVATAR_SPEAKING_POSITIVE_THRESHOLD
      : DEFAULT_FRAME_PROCESSOR_OPTIONS.positiveSpeechThreshold,
  };
}

export interface ConversationContext {
  voice: VoiceService;
  pipeline: CallPipeline;
  events: VoiceEvents;
  feed: PcmFeed;
  scope: VoiceScope;
  asr: NonNullable<AccountInfo['asr']>;
  /** Whether the avatar was speaking when the call started (the threshold was raised then unless the echo gate is on). */
  avatarSpeaking: boolean;
  /**
   * Whether the capture worklet's echo gate is on (the avatar's audio was given to the
   * pipeline): voice detection then hears the visitor over the avatar, and a phrase it did
   * not hear is the avatar's echo.
   */
  echoGated: boolean;
  /**
   * The avatar's stream given to the pipeline at the start. A media reconnect replaces the
   * stream (remoteMedia): the echo gate is moved to the new one, so it never compares the
   * microphone with a stream that has stopped.
   */
  farEnd: MediaStream | null;
}

const AVATAR_COMMANDS: readonly string[] = ['nlp_ready', 'nlp_running', 'nlp_end'];
/** Actions that may change whether the avatar speaks (voiceSlice derives it). */
const isAvatarChange = (a: Action) =>
  (messageReceived.match(a) && a.payload.msg_type === 'command' && AVATAR_COMMANDS.includes(a.payload.command)) ||
  (sendRequested.match(a) && a.payload.type === 'break');
/** What the visitor or the avatar changes while the call runs. */
const isControl = (a: Action) => callLeft.match(a) || muteToggled.match(a) || langChosen.match(a) || isAvatarChange(a);

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

interface Actions {
  /** Whether the echo gate is on and the avatar speaks, or spoke within ECHO_TAIL_MS. */
  avatarEchoes(): boolean;
  /** Holds the avatar's voice in the page (until its next reply). */
  hold(): void;
}

function* act(outputs: SentenceOutput[], lang: Lang, voice: Actions) {
  for (const output of outputs) {
    switch (output.type) {
      case 'interrupt':
        // The visitor stops hearing the avatar at once: its echo would garble their words.
        if ((yield* select(selectAvatarActivity)) === 'speaking') voice.hold();
        yield* put(sendRequested({ type: 'break' }));
        break;
      case 'partial':
        yield* put(partialRecognized({ msgId: output.msgId, text: output.text, mode: 'call' }));
        break;
      case 'complete':
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

/**
 * Raises the VAD threshold while the avatar speaks and no echo gate hears it, restores it
 * otherwise; returns whether it is raised now.
 */
function* syncThreshold(pipeline: CallPipeline, raised: boolean, gated: boolean) {
  const raise = !gated && (yield* select(selectAvatarActivity)) === 'speaking';
  if (raise === raised) return raised;
  try {
    yield* call([pipeline, pipeline.setThresholds], thresholdsFor(raise));
  } catch (error) {
    log.warn('could not change the VAD threshold', String(error));
  }
  return raise;
}

export function* converse(ctx: ConversationContext) {
  const { platform, remoteMedia } = yield* services();
  const { voice, pipeline, events, feed, scope, asr } = ctx;
  let lang = yield* select(selectLang);
  let restarts = 0;
  /** When the failed recognizer is to be opened again (a restart's back-off), or null. */
  let restartAt: number | null = null;
  let sentences = initialSentenceState;
  /** Whether the echo gate has the avatar's current audio to compare with. */
  let gated = ctx.echoGated;
  /** The avatar's stream the gate was last given. */
  let farEnd = ctx.farEnd;
  /** Whether the threshold is raised now (never with the echo gate, which does that job). */
  let raised = ctx.avatarSpeaking && !gated;
  /** Whether the avatar was speaking at the last look. */
  let speaking = ctx.avatarSpeaking;
  /** When to check that the microphone has given any audio (null: it has, or the call is muted). */
  let audioCheckAt: number | null = feed.received === 0 ? Date.now() + NO_AUDIO_MS : null;
  /** The avatar's voice is held (muted in the page) from the visitor's onset to its next reply. */
  let held = false;
  /** Another app has the page's audio: the call is paused (no recognizer, capture paused). */
  let away = false;
  /** When the avatar was last seen speaking (Date.now()), 0 for never. */
  let spokeAt = ctx.avatarSpeaking ? Date.now() : 0;
  const actions: Actions = {
    // A stray phrase comes out EARLY_PHRASE_MS after the recognizer finished it: judged at that moment.
    avatarEchoes: () => gated && (speaking || Date.now() - EARLY_PHRASE_MS - spokeAt < ECHO_TAIL_MS),
    hold: () => {
      if (held) return;
      held = true;
      voice.holdAvatarVoice(true);
      pipeline.setFarEndAudible(false);
    },
  };
  const release = () => {
    if (!held) return;
    held = false;
    voice.holdAvatarVoice(false);
    pipeline.setFarEndAudible(true);
  };
  const recognizers = createRecognizerSlot(voice, scope, { events, feed });
  const open = (segmentationSilenceMs: number) =>
    recognizers.open({ lang, key: asr.appKey, region: asr.region, segmentationSilenceMs });
  const outputs: SentenceOutput[] = [];
  const step = (event: SentenceEvent) => {
    const result = stepSentences(sentences, event, Date.now(), TIMING);
    sentences = result.state;
    outputs.push(...result.outputs);
  };
  const fail = function* (message: NoticeMessage) {
    step({ type: 'flush' });
    yield* act(outputs.splice(0), lang, actions);
    yield* put(alertShown(message));
  };
  /** A recognizer failed: schedules its restart, or says the call is over (false). */
  const recognizerFailed = function* (connectionLost: boolean) {
    step({ type: 'flush' });
    const wait = RECOGNIZER_RESTART_DELAYS_MS[restarts];
    if (wait === undefined) {
      yield* fail({ id: connectionLost ? catalogue.speechUnreachable.id : catalogue.asrConfigFailed.id });
      return false;
    }
    restarts += 1;
    restartAt = Date.now() + wait;
    return true;
  };

  // Buffered: the loop also waits on the pipeline (mute, thresholds), and a Hang up or a
  // mute tapped during such a wait must not be lost (a lost Hang up left the call running).
  const controls = yield* actionChannel(isControl, buffers.expanding<Action>(8));
  const avatarStreams = avatarStreamChannel(remoteMedia);
  /** Moves the echo gate to the avatar's current stream, if a reconnect replaced it. */
  const followAvatar = function* () {
    const next = remoteMedia.get();
    if (next === farEnd) return;
    farEnd = next;
    const was = gated;
    gated = pipeline.setFarEnd(next);
    log.info("the echo gate follows the avatar's new stream", { gated, was });
    raised = yield* call(syncThreshold, pipeline, raised, gated);
  };
  try {
    // The stream may have changed while the call was starting.
    yield* followAvatar();
    // Not awaited here: the loop runs (and audio is held) while the recognizer connects.
    let pending: Promise<RecognizerHandle> | null = open(CALL_START_SILENCE_MS);
    for (;;) {
      const deadline = nextDeadline(sentences, TIMING);
      const { control, ...wake } = yield* race({
        event: take(events.channel),
        control: take(controls),
        tick: deadline !== null ? delay(Math.max(0, deadline - Date.now())) : call(never),
        ready: call(settle, pending ?? never()),
        restart: restartAt !== null ? delay(Math.max(0, restartAt - Date.now())) : call(never),
        audioCheck: audioCheckAt !== null ? delay(Math.max(0, audioCheckAt - Date.now())) : call(never),
        avatarStream: take(avatarStreams),
      });
      if (wake.avatarStream) yield* followAvatar();
      const left = control && callLeft.match(control);
      const mute = control && muteToggled.match(control);
      const langChange = control && langChosen.match(control) ? control : undefined;
      // The avatar's next reply is heard again.
      if (control && messageReceived.match(control) && control.payload.msg_type === 'command' && control.payload.command === 'nlp_ready') release();

      if (left) {
        // Hung up: what is complete still goes; recognition stops with the scope.
        step({ type: 'flush' });
        yield* act(outputs.splice(0), lang, actions);
        return;
      }
      if (wake.audioCheck) {
        audioCheckAt = null;
        if (feed.received === 0) {
          log.warn('the microphone opened but gave no audio: the call ends', { waitedMs: NO_AUDIO_MS });
          yield* fail(noAudioNotice());
          return;
        }
      }
      if (wake.restart) {
        restartAt = null;
        pending = open(CALL_START_SILENCE_MS);
      }
      if (wake.ready) {
        pending = null;
        if (wake.ready.error !== undefined) {
          log.warn('recognition could not start', { error: String(wake.ready.error), restarts });
          // The call's first recognizer: its settings. A restart (they worked before): the connection.
          if (restarts === 0) {
            yield* fail({ id: catalogue.asrConfigFailed.id });
            return;
          }
          if (!(yield* call(recognizerFailed, true))) return;
        }
      }
      if (wake.tick) step({ type: 'tick' });
      // Paused, a detection still on its way from before the pause is not the visitor.
      const event = away && (wake.event?.type === 'speechStart' || wake.event?.type === 'speechEnd' || wake.event?.type === 'misfire') ? undefined : wake.event;
      if (event?.type === 'speechStart') {
        step({ type: 'speechStart', msgId: platform.randomUUID() });
        yield* put(vadSpeechStarted());
      } else if (event?.type === 'speechEnd' || event?.type === 'misfire') {
        step({ type: event.type });
        yield* put(vadSpeechEnded());
      } else if ((event?.type === 'recognizing' || event?.type === 'recognized') && event.recognizer === recognizers.id) {
        if (event.type === 'recognized') restarts = 0;
        step({ type: event.type, text: event.text });
      } else if (event?.type === 'micError') {
        log.warn('the microphone failed during the call', event);
        // Gone with none to open again (unplugged, taken, revoked) says so; a broken detector is the media error.
        yield* fail({ id: event.kind === 'unavailable' ? catalogue.micLost.id : catalogue.mediaAccessFailed.id });
        return;
      } else if (event?.type === 'recognizerFailed' && event.recognizer === recognizers.id) {
        log.warn('recognition failed during the call', { details: event.details, connectionLost: event.connectionLost, restarts });
        if (!(yield* call(recognizerFailed, event.connectionLost))) return;
      }
      if (event?.type === 'audioLost' && !away) {
        away = true;
        log.warn('another app took the audio: the call pauses', { state: event.state });
        step({ type: 'flush' });
        yield* act(outputs.splice(0), lang, actions);
        recognizers.close();
        pending = null;
        restartAt = null;
        audioCheckAt = null;
        feed.setPaused(true);
        yield* put(vadSpeechEnded());
        yield* put(callAudioLost());
        try {
          yield* call([pipeline, pipeline.mute], true);
        } catch (error) {
          log.warn('pausing the call failed', String(error));
        }
      } else if (event?.type === 'audioBack' && away) {
        away = false;
        const muted = yield* select(selectMuted);
        log.info('the audio is back: the call listens again', { muted });
        feed.setPaused(muted);
        audioCheckAt = muted || feed.received > 0 ? null : Date.now() + NO_AUDIO_MS;
        try {
          yield* call([pipeline, pipeline.mute], muted);
        } catch (error) {
          log.warn('resuming the call failed', String(error));
        }
        pending = open(CALL_START_SILENCE_MS);
        voice.resumeAvatarVoice();
        yield* put(callAudioBack());
      }
      if (mute && !away) {
        const muted = yield* select(selectMuted);
        feed.setPaused(muted);
        // Muted, the microphone gives nothing on purpose; unmuted, it has NO_AUDIO_MS again.
        audioCheckAt = muted || feed.received > 0 ? null : Date.now() + NO_AUDIO_MS;
        if (muted) {
          step({ type: 'flush' });
          yield* put(vadSpeechEnded());
        }
        try {
          yield* call([pipeline, pipeline.mute], muted);
        } catch (error) {
          log.warn('mute failed', String(error));
        }
      }
      if (langChange && langChange.payload !== lang) {
        step({ type: 'flush' });
        yield* act(outputs.splice(0), lang, actions);
        lang = langChange.payload;
        // Paused, the new language waits for the audio to come back.
        if (!away) pending = open(LANG_CHANGE_SILENCE_MS);
      }
      yield* act(outputs.splice(0), lang, actions);
      if (speaking) spokeAt = Date.now();
      speaking = (yield* select(selectAvatarActivity)) === 'speaking';
      // With the echo gate the VAD keeps its normal threshold: the gate keeps the avatar's
      // echo out, and a raised threshold would only make the visitor harder to hear.
      raised = yield* call(syncThreshold, pipeline, raised, gated);
    }
  } finally {
    controls.close();
    avatarStreams.close();
    release();
  }
}
