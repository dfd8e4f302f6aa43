/**
 * The hands-free conversation of a call: recognition runs continuously, voice
 * detection (VAD) cuts it into sentences (features/voice/sentences.ts), and every
 * complete sentence becomes the visitor's message (turn.ts). This file is the loop
 * that waits for whatever comes next; conversationSteps.ts has a named step for each
 * thing that can, and outputs.ts carries out what the sentences decide.
 *
 * - A sentence starting interrupts the avatar (break); so does a sentence going up while
 *   a reply is under way that began after it started (the reply to the sentence before,
 *   whose words the recognizer finished while the visitor was already saying this one).
 * - The call starts as soon as the microphone is captured, with the recognizer listening.
 *   Voice detection joins once its model has loaded (seconds on a slow phone; at once when
 *   the session's kept detector is ready): until then the recognizer's own words mark the
 *   sentences (conversationSteps.ts markByRecognizer), so a question in the first
 *   seconds of a call is heard whole and in time, not as a backlog once the detector is up.
 *   So do phrases that started before the detector began to hear the call, however late a
 *   recognizer running behind finishes them: the recognizer's offsets and the detector's
 *   start are placed on one clock, the audio the PCM feed has carried.
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
 * - A new network (the signaling channel resumed on a new socket, signaling.ts) opens a new
 *   recognizer, which hears again what the old one had not answered (conversationSteps.ts
 *   reopenAfterNetworkChange).
 * - Another app taking the page's audio (an iOS phone call or Siri: the AudioContext is
 *   'interrupted') pauses the call: recognition stops, voice detection and capture pause,
 *   nothing is asked of the audio until it is back (features/voice/services/pipeline.ts); then the
 *   call listens again with a new recognizer, and the avatar's voice plays again if the
 *   system had paused it.
 */
import type { Action } from '@reduxjs/toolkit';
import { buffers } from 'redux-saga';
import { actionChannel, call, delay, race, select, take } from 'typed-redux-saga';
import { callLeft } from '../../input/inputSlice.ts';
import { langChosen, selectLang } from '../../locale/localeSlice.ts';
import { messageReceived, sendRequested } from '../../signaling/signalingActions.ts';
import { nextDeadline } from '../sentences.ts';
import { muteToggled } from '../voiceSlice.ts';
import { signalingResumed } from '../../session/sessionSlice.ts';
import { avatarStreamChannel } from '../../../sagas/channels/avatarStreamChannel.ts';
import { services } from '../../../sagas/context.ts';
import { never, settle } from './resources.ts';
import {
  CALL_START_SILENCE_MS,
  checkMicrophoneGaveAudio,
  createConversation,
  detectorSettled,
  flush,
  followAvatarActivity,
  followAvatarStream,
  onLanguage,
  onMute,
  onVoiceEvent,
  openRecognizer,
  recognizerSettled,
  releaseAvatarVoice,
  reopenAfterNetworkChange,
  step,
  TIMING,
  type ConversationContext,
} from './conversationSteps.ts';

export { AVATAR_SPEAKING_POSITIVE_THRESHOLD, discardNotice, thresholdsFor } from './outputs.ts';
export {
  CALL_START_SILENCE_MS,
  EARLY_PHRASE_MS,
  ECHO_TAIL_MS,
  LANG_CHANGE_SILENCE_MS,
  MAX_RECOGNIZER_RESTARTS,
  RECOGNIZER_RESTART_DELAYS_MS,
  SENTENCE_FINAL_WAIT_MS,
  type ConversationContext,
} from './conversationSteps.ts';

const AVATAR_COMMANDS: readonly string[] = ['nlp_ready', 'nlp_running', 'nlp_end'];
/** Actions that may change whether the avatar speaks (voiceSlice derives it). */
const isAvatarChange = (a: Action) =>
  (messageReceived.match(a) && a.payload.msg_type === 'command' && AVATAR_COMMANDS.includes(a.payload.command)) ||
  (sendRequested.match(a) && a.payload.type === 'break');
/** What the visitor or the avatar changes while the call runs. */
const isControl = (a: Action) =>
  callLeft.match(a) || muteToggled.match(a) || langChosen.match(a) || signalingResumed.match(a) || isAvatarChange(a);

/** A delay until `at`, or a wait that never ends when nothing is due then. */
const until = (at: number | null) => (at !== null ? delay(Math.max(0, at - Date.now())) : call(never));

export function* converse(ctx: ConversationContext) {
  const { platform, remoteMedia } = yield* services();
  const c = createConversation(ctx, {
    remoteMedia,
    randomUUID: () => platform.randomUUID(),
    lang: yield* select(selectLang),
  });

  // Buffered: the loop also waits on the pipeline (mute, thresholds), and a Hang up or a
  // mute tapped during such a wait must not be lost (a lost Hang up left the call running).
  const controls = yield* actionChannel(isControl, buffers.expanding<Action>(8));
  const avatarStreams = avatarStreamChannel(remoteMedia);
  try {
    // The stream may have changed while the call was starting.
    yield* followAvatarStream(c);
    c.pending = openRecognizer(c, CALL_START_SILENCE_MS);
    for (;;) {
      const { control, ...wake } = yield* race({
        event: take(ctx.events.channel),
        control: take(controls),
        tick: until(nextDeadline(c.sentences, TIMING)),
        ready: call(settle, c.pending ?? never()),
        restart: until(c.restartAt),
        audioCheck: until(c.audioCheckAt),
        avatarStream: take(avatarStreams),
        detector: c.detector === 'loading' ? call(() => ctx.pipeline.detecting) : call(never),
      });
      if (wake.detector !== undefined) detectorSettled(c, wake.detector);
      if (wake.avatarStream) yield* followAvatarStream(c);
      // The avatar's next reply is heard again.
      if (control && messageReceived.match(control) && control.payload.msg_type === 'command' && control.payload.command === 'nlp_ready') releaseAvatarVoice(c);
      if (control && callLeft.match(control)) {
        // Hung up: what is complete still goes; recognition stops with the scope.
        yield* flush(c);
        return;
      }
      if (wake.audioCheck && !(yield* checkMicrophoneGaveAudio(c))) return;
      if (wake.restart) {
        c.restartAt = null;
        c.pending = openRecognizer(c, CALL_START_SILENCE_MS);
      }
      if (wake.ready && !(yield* recognizerSettled(c, wake.ready))) return;
      if (wake.tick) step(c, { type: 'tick' });
      if (wake.event && !(yield* onVoiceEvent(c, wake.event))) return;
      if (control && muteToggled.match(control) && !c.away) yield* onMute(c);
      if (control && langChosen.match(control) && control.payload !== c.lang) yield* onLanguage(c, control.payload);
      if (control && signalingResumed.match(control)) reopenAfterNetworkChange(c);
      yield* followAvatarActivity(c);
    }
  } finally {
    controls.close();
    avatarStreams.close();
    releaseAvatarVoice(c);
  }
}
