/**
 * Hold to talk (docs/requirements.md R21, R31, R56, R62 and R67). Pressing interrupts the avatar and records;
 * releasing sends what was recognized; sliding up ~15 px first cancels; nothing
 * recognized shows the no-voice toast and sends nothing. Presses are debounced by 300 ms.
 *
 * The microphone goes through the same pipeline as call mode (one capture path), without
 * its voice detection: the visitor's finger marks the start and the end, so no VAD worker,
 * model or inference is started for a press. Capture and recognition start together on the
 * press; audio is held until the recognizer is connected, so the first word is not lost.
 * On release the microphone is closed at once and the recognizer gets up to 1 s for the
 * last phrase, in a task of its own, so the next press need not wait for it.
 *
 * iOS caveat: the pipeline is started in the press's call stack, but a touch pointerdown
 * is not a user activation everywhere (WebKit counts touchend); the AudioContext may
 * then start only because the visitor already tapped Start chat on this page. If it
 * stays suspended no audio comes: a release shows the no-voice toast, and after 3 s the
 * pipeline gives up with the media-access alert. A microphone that opened but delivers
 * no audio within NO_AUDIO_MS ends the hold with "unable to record sound".
 */
import { call, delay, fork, put, race, select, take, type SagaGenerator } from 'typed-redux-saga';
import type { Action } from '@reduxjs/toolkit';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import { modeSwitched, selectInputMode } from '../../input/inputSlice.ts';
import { selectLang, type Lang } from '../../locale/localeSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import { alertShown, toastShown } from '../../notices/noticesSlice.ts';
import { selectSessionStatus } from '../../session/sessionSlice.ts';
import { sendRequested } from '../../signaling/signalingActions.ts';
import { createPcmFeed, type PcmFeed } from '../pcmFeed.ts';
import { joinPhrases } from '../sentences.ts';
import {
  holdAborted,
  holdEnded,
  holdPressed,
  holdReleased,
  holdStarted,
  micAccessFailed,
  selectCallPhase,
  micAccessGranted,
  partialRecognized,
  selectWillCancel,
  sentenceRecognized,
} from '../voiceSlice.ts';
import { createLogger } from '../../../services/logger.ts';
import { createVoiceEvents } from './events.ts';
import { services } from '../../../sagas/context.ts';
import {
  createVoiceScope,
  isSessionOver,
  micFailureNotice,
  micFailureOf,
  never,
  NO_AUDIO_MS,
  noAudioNotice,
  openRecognizer,
  connectionLostIn,
  recognitionFailureNotice,
  settle,
  type RecognizerHandle,
} from './resources.ts';

const log = createLogger('voice');

export const PRESS_DEBOUNCE_MS = 300;
/** After release: the longest wait for the last phrase once the audio has ended (spec: briefly). */
export const HOLD_DRAIN_MS = 1000;
export const HOLD_SEGMENTATION_SILENCE_MS = 1000;
/** After release: how long a recognizer that is still connecting may take before the recording is given up. */
export const HOLD_LATE_START_MS = 3000;

const isHoldEnd = (a: Action) => holdReleased.match(a) || holdAborted.match(a) || modeSwitched.match(a);
/** A released hold whose recognizer still owes its last phrase. */
interface ReleasedHold {
  recognizing: Promise<RecognizerHandle>;
  abort: AbortController;
  feed: PcmFeed;
  phrases: string[];
  msgId: string;
  lang: Lang;
}

function* runHold(): SagaGenerator<ReleasedHold | null> {
  const { voice, platform } = yield* services();
  const asr = (yield* select(selectAccountInfo))?.asr;
  if (!asr) {
    yield* put(alertShown({ id: catalogue.asrConfigFailed.id }));
    return null;
  }
  const lang = yield* select(selectLang);
  const msgId = platform.randomUUID();
  yield* put(holdStarted());
  yield* put(sendRequested({ type: 'break' }));

  const scope = createVoiceScope(log);
  const events = createVoiceEvents();
  const feed = createPcmFeed();
  const phrases: string[] = [];
  // The recognizer is not the scope's: on release it is handed to finishHold.
  const recognizerAbort = new AbortController();
  let recognizing: Promise<RecognizerHandle> | null = null;
  let released: ReleasedHold | null = null;
  try {
    // Nothing asynchronous before this call: it runs in the press's call stack (user gesture).
    const starting = voice.startPipeline({
      ...events.pipelineCallbacks,
      detectVoice: false,
      onPcm16: feed.write,
      signal: scope.signal,
    });
    // The recognizer starts at once, not after the pipeline: the wait only tells whether
    // the microphone opened, and audio held in the feed meanwhile is not lost.
    let opening: Promise<unknown> | null = scope.own(starting, (p) => p.stop());
    const config = { lang, key: asr.appKey, region: asr.region, segmentationSilenceMs: HOLD_SEGMENTATION_SILENCE_MS };
    recognizing = openRecognizer(voice, config, {
      events,
      id: 1,
      feed,
      signal: recognizerAbort.signal,
      onRecognized: (text) => phrases.push(text),
    });
    recognizing.catch((error: unknown) => {
      if (!recognizerAbort.signal.aborted) events.emit({ type: 'recognizerFailed', details: String(error), recognizer: 1, connectionLost: connectionLostIn(error) });
    });

    /** When to check that the open microphone has given any audio. */
    let audioCheckAt: number | null = null;
    for (;;) {
      const { event, end, mic, audioCheck } = yield* race({
        event: take(events.channel),
        end: take(isHoldEnd),
        mic: call(settle, opening ?? never()),
        audioCheck: audioCheckAt !== null ? delay(Math.max(0, audioCheckAt - Date.now())) : call(never),
      });
      if (audioCheck) {
        audioCheckAt = null;
        if (feed.received > 0) continue;
        log.warn('hold to talk: the microphone opened but gave no audio', { waitedMs: NO_AUDIO_MS });
        yield* put(alertShown(noAudioNotice()));
        return null;
      }
      if (mic) {
        opening = null;
        if (mic.error === undefined) {
          yield* put(micAccessGranted());
          audioCheckAt = Date.now() + NO_AUDIO_MS;
          continue;
        }
        const kind = micFailureOf(mic.error);
        log.warn('hold to talk: no microphone', { kind, error: String(mic.error) });
        yield* put(micAccessFailed(kind));
        yield* put(alertShown(micFailureNotice(kind)));
        return null;
      }
      if (end) {
        if ((yield* select(selectWillCancel)) || modeSwitched.match(end)) {
          log.info('hold to talk cancelled');
          return null;
        }
        if (feed.received === 0) {
          // Released before the microphone delivered anything: nothing was recorded.
          yield* put(toastShown({ id: catalogue.noVoice.id }));
          return null;
        }
        released = { recognizing, abort: recognizerAbort, feed, phrases, msgId, lang };
        return released;
      }
      if (event?.type === 'recognizing') yield* put(partialRecognized({ msgId, text: event.text, mode: 'hold' }));
      if (event?.type === 'micError') {
        log.warn('hold to talk: the microphone failed', event);
        yield* put(alertShown({ id: catalogue.mediaAccessFailed.id }));
        return null;
      }
      if (event?.type === 'recognizerFailed') {
        log.warn('hold to talk: recognition failed', { details: event.details, connectionLost: event.connectionLost });
        yield* put(alertShown(recognitionFailureNotice(event.connectionLost)));
        return null;
      }
    }
  } finally {
    // The microphone closes now in every case; the recognizer only if it was not handed on.
    scope.close();
    events.close();
    if (!released) {
      recognizerAbort.abort();
      feed.close();
      void recognizing?.then(
        (handle) => handle.close(),
        () => {},
      );
    }
    yield* put(holdEnded());
  }
}

/** The audio has ended: wait briefly for the last phrase, then send the words or say none were heard. */
function* finishHold(hold: ReleasedHold) {
  let handle: RecognizerHandle | undefined;
  /** A failure of the recognizer while it drains after the release: whether it lost the service. */
  let failedAfterRelease: boolean | null = null;
  try {
    ({ handle } = yield* race({ handle: call(() => hold.recognizing), timeout: delay(HOLD_LATE_START_MS) }));
    if (handle) {
      const off = handle.recognizer.on('canceled', (reason, _details, connectionLost) => {
        if (reason === 'error') failedAfterRelease = connectionLost;
      });
      try {
        yield* call([handle, handle.close], HOLD_DRAIN_MS);
      } finally {
        off();
      }
    } else log.warn('hold to talk: the recognizer did not start in time');
  } catch (error) {
    log.warn('hold to talk: recognition failed', String(error));
    yield* put(alertShown(recognitionFailureNotice(connectionLostIn(error))));
    return;
  } finally {
    hold.abort.abort();
    hold.feed.close();
    void hold.recognizing.then((h) => h.close(), () => {});
  }
  const text = joinPhrases(hold.phrases, hold.lang);
  if (text === '' && failedAfterRelease !== null) {
    // No words because the recognizer failed, not because nothing was said.
    log.warn('hold to talk: recognition failed after the release', { connectionLost: failedAfterRelease });
    yield* put(alertShown(recognitionFailureNotice(failedAfterRelease)));
    return;
  }
  if (text === '') {
    yield* put(toastShown({ id: catalogue.noVoice.id }));
    return;
  }
  yield* put(sentenceRecognized({ msgId: hold.msgId, text }));
}

export function* holdWatcher() {
  let lastEndedAt = Number.NEGATIVE_INFINITY;
  for (;;) {
    yield* take(holdPressed.match);
    if (Date.now() - lastEndedAt < PRESS_DEBOUNCE_MS) {
      log.debug('press ignored (debounce)');
      continue;
    }
    if ((yield* select(selectInputMode)) !== 'speak' || (yield* select(selectSessionStatus)) !== 'live') continue;
    // A call is starting (the bar still shows speak mode): one microphone capture at a time.
    if ((yield* select(selectCallPhase)) !== 'off') continue;
    const { hold } = yield* race({ hold: call(runHold), over: take(isSessionOver) });
    lastEndedAt = Date.now();
    if (hold) yield* fork(finishHold, hold);
  }
}
