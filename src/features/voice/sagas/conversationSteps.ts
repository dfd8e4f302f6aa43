/**
 * The steps of a call's conversation (conversation.ts runs the loop that takes them):
 * what it knows between two wake-ups (Conversation), and one generator per thing that wakes
 * it (a voice detection, a recognizer's words or failure, another app taking the audio,
 * mute, a language change, the avatar's stream and activity). Each step that may end the
 * call returns whether it goes on.
 */
import { call, put, select } from 'typed-redux-saga';
import type { AccountInfo } from '../../account/accountSlice.ts';
import type { Lang } from '../../locale/localeSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import { alertShown, type NoticeMessage } from '../../notices/noticesSlice.ts';
import { selectRecentAvatarTexts } from '../../chat/selectors.ts';
import { isEchoOf, wordsOf } from '../echo.ts';
import { REPLAY_KEEP_MS, type PcmFeed } from '../pcmFeed.ts';
import {
  initialSentenceState,
  stepSentences,
  waitFrom,
  type SentenceEvent,
  type SentenceOutput,
  type SentenceState,
} from '../sentences.ts';
import {
  callAudioBack,
  callAudioLost,
  selectAvatarActivity,
  selectMuted,
  vadSpeechEnded,
  vadSpeechStarted,
} from '../voiceSlice.ts';
import { createLogger } from '../../../services/logger.ts';
import type { RemoteMediaHolder } from '../../../services/remoteMedia.ts';
import type { CallPipeline, VoiceService } from '../services/service.ts';
import type { VoiceEvent, VoiceEvents } from './events.ts';
import {
  createRecognizerSlot,
  NO_AUDIO_MS,
  noAudioNotice,
  type RecognizerHandle,
  type RecognizerSlot,
  type Settled,
  type VoiceScope,
} from './resources.ts';
import { act, syncThreshold, type Actions } from './outputs.ts';

const log = createLogger('voice');

export const CALL_START_SILENCE_MS = 1000;
export const LANG_CHANGE_SILENCE_MS = 500;
/** How long a sentence the VAD has ended waits for the recognizer's final phrase. */
export const SENTENCE_FINAL_WAIT_MS = 1500;
/** How long a phrase heard before its sentence started (a VAD running late) may wait for it. */
export const EARLY_PHRASE_MS = 2000;
export const TIMING = { waitMs: SENTENCE_FINAL_WAIT_MS, earlyMs: EARLY_PHRASE_MS };
/**
 * A sentence the VAD ends while the call's recognizer is still connecting waits this long,
 * and once it connects with a backlog, RECOGNIZER_CATCH_UP_MS more; so does one it ends within
 * RECOGNIZER_CATCH_UP_MS of such a connect (the recognizer is still working through the queued audio). A recognizer
 * that connects late (a slow network, or a restart) gets the audio held meanwhile as a
 * backlog; with the usual wait a sentence was given up as "not recognised" and its words,
 * arriving two seconds later, dropped as the avatar's echo.
 */
export const PENDING_RECOGNIZER_WAIT_MS = 15_000;
export const RECOGNIZER_CATCH_UP_MS = SENTENCE_FINAL_WAIT_MS * 2;
/** A backlog of about a second (96 ms chunks) or more is worth the catch-up wait. */
export const CATCH_UP_BACKLOG_CHUNKS = 10;
const PENDING_TIMING = { ...TIMING, waitMs: PENDING_RECOGNIZER_WAIT_MS };
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



/** What the conversation knows between two wake-ups of its loop; the steps below change it. */
export interface Conversation {
  readonly ctx: ConversationContext;
  readonly recognizers: RecognizerSlot;
  readonly remoteMedia: RemoteMediaHolder;
  readonly randomUUID: () => string;
  readonly actions: Actions;
  /** The sentence machine's outputs not carried out yet. */
  readonly outputs: SentenceOutput[];
  sentences: SentenceState;
  lang: Lang;
  /** The recognizer being opened (not awaited: the loop runs while it connects), or null. */
  pending: Promise<RecognizerHandle> | null;
  restarts: number;
  /** When the failed recognizer is to be opened again (a restart's back-off), or null. */
  restartAt: number | null;
  /** Whether the echo gate has the avatar's current audio to compare with. */
  gated: boolean;
  /** The avatar's stream the gate was last given. */
  farEnd: MediaStream | null;
  /** Whether the threshold is raised now (never with the echo gate, which does that job). */
  raised: boolean;
  /** Whether the avatar was speaking at the last look. */
  speaking: boolean;
  /** When to check that the microphone has given any audio (null: it has, or the call is muted). */
  audioCheckAt: number | null;
  /** The avatar's voice is held (muted in the page) from the visitor's onset to its next reply. */
  held: boolean;
  /** Another app has the page's audio: the call is paused (no recognizer, capture paused). */
  away: boolean;
  /** When the avatar was last seen speaking (Date.now()), 0 for never. */
  spokeAt: number;
  /** Until when the recognizer that just connected may still be working through its backlog (Date.now()). */
  catchUpUntil: number;
  /**
   * Voice detection: loading (the call started before its model was ready, and the
   * recognizer marks the sentences meanwhile), on (it hears the microphone), or off (it
   * never will; the pipeline's error ends the call).
   */
  detector: 'loading' | 'on' | 'off';
  /** The sentence the recognizer opened while the detector was loading (its msgId), until its final phrase. */
  byRecognizer: string | null;
  /** Where on the feed's clock the detector began to hear the call (null until it joins). */
  detectorFromMs: number | null;
  /**
   * Where on the feed's clock the last final phrase had surely ended: when it came, less the
   * shortest segmentation silence (the recognizer finalises a phrase only after that much quiet).
   */
  answeredToMs: number;
  /** A recognizer of this call has started once: one that cannot start later met the network, not bad settings. */
  recognizerWorked: boolean;
}

export function step(c: Conversation, event: SentenceEvent): void {
  const now = Date.now();
  const result = stepSentences(c.sentences, event, now, c.pending ? PENDING_TIMING : TIMING);
  const closing = result.state.closing;
  // A sentence that ends while the recognizer works through its backlog waits for the catch-up.
  c.sentences = closing && closing.deadline < c.catchUpUntil ? waitFrom(result.state, now, c.catchUpUntil - now) : result.state;
  c.outputs.push(...result.outputs);
}

export function openRecognizer(c: Conversation, segmentationSilenceMs: number, replayFromMs?: number): Promise<RecognizerHandle> {
  const { asr } = c.ctx;
  return c.recognizers.open({ lang: c.lang, key: asr.appKey, region: asr.region, segmentationSilenceMs }, replayFromMs);
}

/**
 * The signaling channel moved to a new socket because the old path died (a new network):
 * the recognizer's socket ran over that path too, so a new recognizer opens, and hears again
 * what the old one had not answered yet (from its last final phrase, REPLAY_KEEP_MS at
 * most), so nothing the visitor said over the change is lost.
 */
export function reopenAfterNetworkChange(c: Conversation) {
  if (c.away) return;
  const replayFromMs = Math.max(c.answeredToMs, c.ctx.feed.receivedMs - REPLAY_KEEP_MS);
  log.info('the network changed: a new recognizer hears the call', { replayMs: Math.round(c.ctx.feed.receivedMs - replayFromMs) });
  c.restartAt = null;
  c.pending = openRecognizer(c, CALL_START_SILENCE_MS, replayFromMs);
}

/** The avatar's voice plays in the page again, and the echo gate hears it again. */
export function releaseAvatarVoice(c: Conversation): void {
  if (!c.held) return;
  c.held = false;
  c.ctx.voice.holdAvatarVoice(false);
  c.ctx.pipeline.setFarEndAudible(true);
}

/** Ends the sentence in progress and carries out what is complete. */
export function* flush(c: Conversation) {
  step(c, { type: 'flush' });
  yield* act(c.outputs.splice(0), c.lang, c.actions);
}

/** The call ends with `message`; what is complete still goes. */
export function* endWith(c: Conversation, message: NoticeMessage) {
  yield* flush(c);
  yield* put(alertShown(message));
}

/** A recognizer failed: schedules its restart, or says the call is over. */
export function* recognizerFailed(c: Conversation, connectionLost: boolean) {
  step(c, { type: 'flush' });
  const wait = RECOGNIZER_RESTART_DELAYS_MS[c.restarts];
  if (wait === undefined) {
    yield* endWith(c, { id: connectionLost ? catalogue.speechUnreachable.id : catalogue.asrConfigFailed.id });
    return false;
  }
  c.restarts += 1;
  c.restartAt = Date.now() + wait;
  return true;
}

/** Moves the echo gate to the avatar's current stream, if a reconnect replaced it. */
export function* followAvatarStream(c: Conversation) {
  const next = c.remoteMedia.get();
  if (next === c.farEnd) return;
  c.farEnd = next;
  const was = c.gated;
  c.gated = c.ctx.pipeline.setFarEnd(next);
  log.info("the echo gate follows the avatar's new stream", { gated: c.gated, was });
  c.raised = yield* call(syncThreshold, c.ctx.pipeline, c.raised, c.gated);
}

/** NO_AUDIO_MS after the start or an unmute: a microphone that gave nothing ends the call. */
export function* checkMicrophoneGaveAudio(c: Conversation) {
  c.audioCheckAt = null;
  if (c.ctx.feed.received > 0) return true;
  log.warn('the microphone opened but gave no audio: the call ends', { waitedMs: NO_AUDIO_MS });
  yield* endWith(c, noAudioNotice());
  return false;
}

/** The recognizer being opened connected, or could not. */
export function* recognizerSettled(c: Conversation, ready: Settled<unknown>) {
  c.pending = null;
  if (ready.error === undefined) {
    c.recognizerWorked = true;
    if (c.ctx.feed.handedOver >= CATCH_UP_BACKLOG_CHUNKS) {
      c.catchUpUntil = Date.now() + RECOGNIZER_CATCH_UP_MS;
      c.sentences = waitFrom(c.sentences, Date.now(), RECOGNIZER_CATCH_UP_MS);
    }
    return true;
  }
  log.warn('recognition could not start', { error: String(ready.error), restarts: c.restarts });
  // The call's first recognizer: its settings. A later one (they worked before: a restart, a
  // new language, a new network): the connection.
  if (!c.recognizerWorked) {
    yield* endWith(c, { id: catalogue.asrConfigFailed.id });
    return false;
  }
  return yield* call(recognizerFailed, c, true);
}

/** Voice detection heard a sentence start or end (or a misfire). */
export function* onDetection(c: Conversation, event: Extract<VoiceEvent, { type: 'speechStart' | 'speechEnd' | 'misfire' }>) {
  if (event.type === 'speechStart') {
    step(c, { type: 'speechStart', msgId: c.randomUUID() });
    yield* put(vadSpeechStarted());
  } else {
    step(c, { type: event.type });
    yield* put(vadSpeechEnded());
  }
}

/**
 * A recognizer's words while voice detection is loading: the recognizer marks the
 * sentences. Its first words start one (interrupting the avatar) and its final phrase ends
 * it, so the visitor is heard from the moment the microphone opens. Over the avatar's voice
 * (and for ECHO_TAIL_MS after it) a sentence starts only with a final phrase that is not the
 * avatar's own words (features/voice/echo.ts): its echo does not interrupt it. A sentence
 * opened so is ended by its final phrase, or by the detector if it joined meanwhile.
 */
export function* markByRecognizer(c: Conversation, event: { type: 'recognizing' | 'recognized'; text: string }) {
  const { open, closing } = c.sentences;
  if (!open && !closing) {
    // The recognizer finishes a phrase a second or more after its audio: the avatar's last
    // words can come after it stopped.
    if (c.speaking || Date.now() - c.spokeAt < ECHO_TAIL_MS) {
      if (event.type === 'recognizing') return;
      if (isEchoOf(event.text, yield* select(selectRecentAvatarTexts))) {
        log.info('a phrase heard before voice detection was ready repeats the avatar: dropped as echo', { words: wordsOf(event.text).length });
        return;
      }
    }
    const msgId = c.randomUUID();
    c.byRecognizer = msgId;
    step(c, { type: 'speechStart', msgId });
    yield* put(vadSpeechStarted());
  }
  step(c, event);
  if (event.type === 'recognized' && c.byRecognizer !== null && c.sentences.open?.msgId === c.byRecognizer) {
    c.byRecognizer = null;
    step(c, { type: 'speechEnd' });
    yield* put(vadSpeechEnded());
  }
}

/** Voice detection joined the call (true), or never will (false: the pipeline's error ends the call). */
export function detectorSettled(c: Conversation, joined: boolean): void {
  c.detector = joined ? 'on' : 'off';
  if (joined) c.detectorFromMs = c.ctx.feed.receivedMs;
  if (joined) log.info('voice detection hears the call; it marks the sentences from now on');
  else log.warn('voice detection will not join the call');
}

/**
 * Whether the recognizer marks this phrase (markByRecognizer), rather than voice detection:
 * while the detector loads, for a sentence the recognizer opened, and for a phrase spoken
 * before the detector began to hear the call. A recognizer running behind (a loaded phone)
 * can finish such a phrase long after the detector joined, which never heard it.
 */
function recognizerMarks(c: Conversation, atMs: number | undefined): boolean {
  const { open, closing } = c.sentences;
  if (c.byRecognizer !== null && open?.msgId !== c.byRecognizer && closing?.msgId !== c.byRecognizer) c.byRecognizer = null;
  const beforeDetector = atMs !== undefined && c.detectorFromMs !== null && atMs < c.detectorFromMs;
  return c.detector === 'loading' || c.byRecognizer !== null || beforeDetector;
}

/** Another app took the page's audio: the call pauses and asks nothing of it. */
export function* pauseForOtherApp(c: Conversation, state: string) {
  c.away = true;
  log.warn('another app took the audio: the call pauses', { state });
  yield* flush(c);
  c.recognizers.close();
  c.pending = null;
  c.restartAt = null;
  c.audioCheckAt = null;
  c.ctx.feed.setPaused(true);
  yield* put(vadSpeechEnded());
  yield* put(callAudioLost());
  try {
    yield* call([c.ctx.pipeline, c.ctx.pipeline.mute], true);
  } catch (error) {
    log.warn('pausing the call failed', String(error));
  }
}

/** The audio is back: the call listens again with a new recognizer, muted if it was. */
export function* resumeAfterOtherApp(c: Conversation) {
  const { feed, pipeline, voice } = c.ctx;
  c.away = false;
  const muted = yield* select(selectMuted);
  log.info('the audio is back: the call listens again', { muted });
  feed.setPaused(muted);
  c.audioCheckAt = muted || feed.received > 0 ? null : Date.now() + NO_AUDIO_MS;
  try {
    yield* call([pipeline, pipeline.mute], muted);
  } catch (error) {
    log.warn('resuming the call failed', String(error));
  }
  c.pending = openRecognizer(c, CALL_START_SILENCE_MS);
  voice.resumeAvatarVoice();
  yield* put(callAudioBack());
}

/** An event from the pipeline or the recognizer. */
export function* onVoiceEvent(c: Conversation, event: VoiceEvent) {
  switch (event.type) {
    case 'speechStart':
    case 'speechEnd':
    case 'misfire':
      // Paused, a detection still on its way from before the pause is not the visitor.
      if (!c.away) yield* onDetection(c, event);
      return true;
    case 'recognizing':
    case 'recognized':
      if (event.recognizer !== c.recognizers.id) return true;
      if (event.type === 'recognized') {
        c.restarts = 0;
        c.answeredToMs = Math.max(c.answeredToMs, c.ctx.feed.receivedMs - LANG_CHANGE_SILENCE_MS);
      }
      if (recognizerMarks(c, event.atMs)) yield* markByRecognizer(c, { type: event.type, text: event.text });
      else step(c, { type: event.type, text: event.text });
      return true;
    case 'micError':
      log.warn('the microphone failed during the call', event);
      // Gone with none to open again (unplugged, taken, revoked) says so; a broken detector is the media error.
      yield* endWith(c, { id: event.kind === 'unavailable' ? catalogue.micLost.id : catalogue.mediaAccessFailed.id });
      return false;
    case 'recognizerFailed':
      if (event.recognizer !== c.recognizers.id) return true;
      log.warn('recognition failed during the call', { details: event.details, connectionLost: event.connectionLost, restarts: c.restarts });
      return yield* call(recognizerFailed, c, event.connectionLost);
    case 'audioLost':
      if (!c.away) yield* pauseForOtherApp(c, event.state);
      return true;
    case 'audioBack':
      if (c.away) yield* resumeAfterOtherApp(c);
      return true;
  }
}

/** Mute toggled (not while paused): the feed, the no-audio check and the pipeline follow. */
export function* onMute(c: Conversation) {
  const { feed, pipeline } = c.ctx;
  const muted = yield* select(selectMuted);
  feed.setPaused(muted);
  // Muted, the microphone gives nothing on purpose; unmuted, it has NO_AUDIO_MS again.
  c.audioCheckAt = muted || feed.received > 0 ? null : Date.now() + NO_AUDIO_MS;
  if (muted) {
    step(c, { type: 'flush' });
    yield* put(vadSpeechEnded());
  }
  try {
    yield* call([pipeline, pipeline.mute], muted);
  } catch (error) {
    log.warn('mute failed', String(error));
  }
}

/** A new language: the sentence in progress ends and a recognizer for it opens. */
export function* onLanguage(c: Conversation, lang: Lang) {
  yield* flush(c);
  c.lang = lang;
  // Paused, the new language waits for the audio to come back.
  if (!c.away) c.pending = openRecognizer(c, LANG_CHANGE_SILENCE_MS);
}

/** At the end of every wake-up: outputs carried out, and the threshold follows the avatar. */
export function* followAvatarActivity(c: Conversation) {
  yield* act(c.outputs.splice(0), c.lang, c.actions);
  if (c.speaking) c.spokeAt = Date.now();
  c.speaking = (yield* select(selectAvatarActivity)) === 'speaking';
  // With the echo gate the VAD keeps its normal threshold: the gate keeps the avatar's
  // echo out, and a raised threshold would only make the visitor harder to hear.
  c.raised = yield* call(syncThreshold, c.ctx.pipeline, c.raised, c.gated);
}

/** Delay until `at`, or a wait that never ends when nothing is due. */

/** The conversation as a call starts it. */
export function createConversation(
  ctx: ConversationContext,
  { remoteMedia, randomUUID, lang }: Pick<Conversation, 'remoteMedia' | 'randomUUID' | 'lang'>,
): Conversation {
  const { voice, pipeline, events, feed, scope } = ctx;
  const c: Conversation = {
    ctx,
    recognizers: createRecognizerSlot(voice, scope, { events, feed }),
    remoteMedia,
    randomUUID,
    outputs: [],
    sentences: initialSentenceState,
    lang,
    pending: null,
    restarts: 0,
    restartAt: null,
    gated: ctx.echoGated,
    farEnd: ctx.farEnd,
    raised: ctx.avatarSpeaking && !ctx.echoGated,
    speaking: ctx.avatarSpeaking,
    audioCheckAt: feed.received === 0 ? Date.now() + NO_AUDIO_MS : null,
    held: false,
    away: false,
    spokeAt: ctx.avatarSpeaking ? Date.now() : 0,
    catchUpUntil: 0,
    detector: 'loading',
    byRecognizer: null,
    detectorFromMs: null,
    answeredToMs: 0,
    recognizerWorked: false,
    actions: {
      // A stray phrase comes out EARLY_PHRASE_MS after the recognizer finished it: judged at that moment.
      avatarEchoes: () => c.gated && (c.speaking || Date.now() - EARLY_PHRASE_MS - c.spokeAt < ECHO_TAIL_MS),
      hold: () => {
        if (c.held) return;
        c.held = true;
        voice.holdAvatarVoice(true);
        pipeline.setFarEndAudible(false);
      },
    },
  };
  return c;
}
