/**
 * Call mode, hands-free (docs/requirements.md R60, R61, R68, R69 and R108): Start call checks the account's
 * speech settings, opens the microphone, and enters call mode; the conversation
 * (conversation.ts) runs until Hang up, a failure, or the end of the session.
 * However it ends, the microphone, the AudioContext, the worklet, the VAD worker and
 * the recognizer are released.
 *
 * User gesture: between the Start call tap and getUserMedia/AudioContext there is no
 * asynchronous step (select and put run synchronously inside the dispatch), so they are
 * created in the tap's call stack, which iOS Safari needs to let audio start.
 */
import type { Task } from 'redux-saga';
import { call, cancel, fork, put, race, select, take } from 'typed-redux-saga';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import { callEntered, callLeft, callRequested, selectInputMode } from '../../input/inputSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import { alertShown } from '../../notices/noticesSlice.ts';
import { selectSessionStatus } from '../../session/sessionSlice.ts';
import { createPcmFeed } from '../pcmFeed.ts';
import {
  callStartFailed,
  callStarting,
  micAccessFailed,
  micAccessGranted,
  selectHoldPhase,
  selectSpeakingReply,
} from '../voiceSlice.ts';
import { createLogger } from '../../../services/logger.ts';
import type { CallPipeline } from '../services/service.ts';
import { createVoiceEvents } from './events.ts';
import { services } from '../../../sagas/context.ts';
import { lowerForWarmup, warmEchoCanceller } from './echoWarmup.ts';
import { converse } from './conversation.ts';
import { thresholdsFor } from './outputs.ts';
import { createVoiceScope, isSessionOver, micFailureNotice, micFailureOf } from './resources.ts';

const log = createLogger('voice');

function* runCall() {
  const { voice, remoteMedia } = yield* services();
  const asr = (yield* select(selectAccountInfo))?.asr;
  if (!asr) {
    // docs/requirements.md R69: recognition needs the key and region of the account's AsrList.
    log.warn('call refused: the account has no speech settings');
    yield* put(alertShown({ id: catalogue.asrConfigFailed.id }));
    return;
  }
  // A reply already playing at the tap is lowered while the echo canceller warms up; a silent
  // avatar is left at full voice (echoWarmup.ts).
  const lowered = yield* select(selectSpeakingReply);
  const avatarSpeaking = lowered !== null;
  yield* put(callStarting());

  const farEnd = remoteMedia.get();
  const scope = createVoiceScope(log);
  const events = createVoiceEvents();
  const feed = createPcmFeed();
  let entered = false;
  let warmup: Task | null = null;
  try {
    let pipeline: CallPipeline;
    try {
      // Before the microphone opens: the echo canceller's first seconds hear that reply low.
      if (lowered !== null) lowerForWarmup(voice);
      const starting = voice.startPipeline({
        ...events.pipelineCallbacks,
        onPcm16: feed.write,
        signal: scope.signal,
        // The avatar's audio, for the echo gate: its own voice must not interrupt it. The
        // conversation moves the gate to each new stream a media reconnect brings.
        farEnd,
        // Joining while the avatar talks without the echo gate: start deaf to it (see conversation.ts).
        ...(avatarSpeaking && !farEnd ? { vadOptions: { thresholds: thresholdsFor(true) } } : {}),
      });
      pipeline = yield* call(() => scope.own(starting, (p) => p.stop()));
    } catch (error) {
      const kind = micFailureOf(error);
      log.warn('call refused: no microphone', { kind, error: String(error) });
      yield* put(micAccessFailed(kind));
      yield* put(alertShown(micFailureNotice(kind)));
      return;
    }
    yield* put(micAccessGranted());
    if (lowered !== null) warmup = yield* fork(warmEchoCanceller, voice, lowered);
    yield* put(callEntered());
    entered = true;
    log.info('call started');
    yield* call(converse, { voice, pipeline, events, feed, scope, asr, avatarSpeaking, echoGated: farEnd !== null, farEnd });
  } finally {
    if (warmup) yield* cancel(warmup);
    if (lowered !== null) voice.setAvatarVolume(1);
    scope.close();
    events.close();
    feed.close();
    if (!entered) yield* put(callStartFailed());
    // Ended by a failure (not by Hang up): leave call mode too.
    else if ((yield* select(selectInputMode)) === 'call') yield* put(callLeft());
    log.info('call ended');
  }
}

export function* callWatcher() {
  for (;;) {
    yield* take(callRequested.match);
    if ((yield* select(selectSessionStatus)) !== 'live' || (yield* select(selectInputMode)) === 'call') continue;
    // Hold to talk is recording (a second finger on Start call): one microphone capture at a time.
    if ((yield* select(selectHoldPhase)) !== 'idle') continue;
    yield* race({ call: call(runCall), over: take(isSessionOver) });
  }
}
