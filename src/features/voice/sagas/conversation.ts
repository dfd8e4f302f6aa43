/**
 * The saga that runs a hands-free call's state machine (callMachine.ts): it waits for
 * whatever comes next (voice detection, the recognizer, the visitor's controls, the
 * avatar, a deadline), hands it to the machine as an event, and carries out the effects
 * the machine returns (a recognizer opened, the detector muted, a message sent). The
 * rules themselves, with their reasons and figures, are listed in src/features/voice/README.md.
 */
import type { Action } from '@reduxjs/toolkit';
import { buffers } from 'redux-saga';
import { actionChannel, call, delay, put, race, select, take } from 'typed-redux-saga';
import type { AccountInfo } from '../../account/accountSlice.ts';
import { selectRecentAvatarTexts } from '../../chat/selectors.ts';
import { callLeft } from '../../input/inputSlice.ts';
import { langChosen, selectLang } from '../../locale/localeSlice.ts';
import { alertShown } from '../../notices/noticesSlice.ts';
import { messageReceived, sendRequested } from '../../signaling/signalingActions.ts';
import { signalingResumed } from '../../session/sessionSlice.ts';
import type { PcmFeed } from '../pcmFeed.ts';
import { nextDeadline } from '../sentences.ts';
import { muteToggled, selectAvatarActivity, selectMuted } from '../voiceSlice.ts';
import { avatarStreamChannel } from '../../../sagas/channels/avatarStreamChannel.ts';
import { services } from '../../../sagas/context.ts';
import { createLogger } from '../../../services/logger.ts';
import type { CallPipeline, VoiceService } from '../services/service.ts';
import { next, startCall, type CallEffect, type CallEvent } from './callMachine.ts';
import { avatarEchoes, TIMING } from './callState.ts';
import type { VoiceEvent, VoiceEvents } from './events.ts';
import { act, thresholdsFor } from './outputs.ts';
import { createRecognizerSlot, never, settle, type RecognizerHandle, type VoiceScope } from './resources.ts';

const log = createLogger('voice');

export interface ConversationContext {
  voice: VoiceService;
  pipeline: CallPipeline;
  events: VoiceEvents;
  feed: PcmFeed;
  scope: VoiceScope;
  asr: NonNullable<AccountInfo['asr']>;
  /** Whether the avatar was speaking when the call started (the threshold was raised then unless the echo gate is on). */
  avatarSpeaking: boolean;
  /** Whether the capture worklet's echo gate is on (the avatar's audio was given to the pipeline). */
  echoGated: boolean;
  /** The avatar's stream given to the pipeline at the start; the gate follows each new one a media reconnect brings. */
  farEnd: MediaStream | null;
}

const AVATAR_COMMANDS: readonly string[] = ['nlp_ready', 'nlp_running', 'nlp_end'];
/** Actions that may change whether the avatar speaks (voiceSlice derives it). */
const isAvatarChange = (a: Action) =>
  (messageReceived.match(a) && a.payload.msg_type === 'command' && AVATAR_COMMANDS.includes(a.payload.command)) ||
  (sendRequested.match(a) && a.payload.type === 'break');
/** What the visitor or the avatar changes while the call runs. */
const isControl = (a: Action) =>
  callLeft.match(a) || muteToggled.match(a) || langChosen.match(a) || signalingResumed.match(a) || isAvatarChange(a);
const isNlpReady = (a: Action) => messageReceived.match(a) && a.payload.msg_type === 'command' && a.payload.command === 'nlp_ready';

const MUTE_FAILED = { mute: 'mute failed', pause: 'pausing the call failed', resume: 'resuming the call failed' } as const;

/** A delay until `at`, or a wait that never ends when nothing is due then. */
const until = (at: number | null) => (at !== null ? delay(Math.max(0, at - Date.now())) : call(never));

/** Runs a call (callMachine.ts) until it ends: takes its events, carries out its effects. */
export function* converse(ctx: ConversationContext) {
  const { voice, pipeline, events, feed, scope, asr } = ctx;
  const { platform, remoteMedia } = yield* services();
  const recognizers = createRecognizerSlot(voice, scope, { events, feed });
  const env = () => ({ now: Date.now(), newId: () => platform.randomUUID() });
  let farEnd = ctx.farEnd;
  let pending: Promise<RecognizerHandle> | null = null;
  const started = startCall({ lang: yield* select(selectLang), avatarSpeaking: ctx.avatarSpeaking, echoGated: ctx.echoGated, received: feed.received, now: Date.now() });
  let state = started[0];

  /** Effects that need no saga: carried out at once (an interrupt's hold runs inside act()). */
  const runSync = (effect: CallEffect): boolean => {
    switch (effect.type) {
      case 'openRecognizer': {
        const { lang } = state;
        pending = recognizers.open({ lang, key: asr.appKey, region: asr.region, segmentationSilenceMs: effect.silenceMs }, effect.replayFromMs);
        return true;
      }
      case 'closeRecognizer':
        recognizers.close();
        pending = null;
        return true;
      case 'pauseFeed':
        feed.setPaused(effect.paused);
        return true;
      case 'holdAvatar':
        voice.holdAvatarVoice(effect.held);
        pipeline.setFarEndAudible(!effect.held);
        return true;
      case 'resumeAvatarVoice':
        voice.resumeAvatarVoice();
        return true;
      case 'log':
        if (effect.data === undefined) log[effect.level](effect.message);
        else log[effect.level](effect.message, effect.data);
        return true;
      default:
        return false;
    }
  };
  const feedSync = (event: CallEvent) => {
    const [after, effects] = next(state, event, env());
    state = after;
    for (const effect of effects) if (!runSync(effect)) throw new Error(`a ${effect.type} cannot be carried out here`);
  };
  const actions = { avatarEchoes: () => avatarEchoes(state, Date.now()), hold: () => feedSync({ type: 'hold' }) };

  /** Carries out `effects`; false once the call is over. */
  function* perform(effects: CallEffect[]) {
    for (const effect of effects) {
      if (runSync(effect)) continue;
      switch (effect.type) {
        case 'act':
          yield* act(effect.outputs, effect.lang, actions);
          break;
        case 'put':
          yield* put(effect.action);
          break;
        case 'muteDetector':
          try {
            yield* call([pipeline, pipeline.mute], effect.muted);
          } catch (error) {
            log.warn(MUTE_FAILED[effect.why], String(error));
          }
          break;
        case 'threshold':
          try {
            yield* call([pipeline, pipeline.setThresholds], thresholdsFor(effect.raised));
          } catch (error) {
            log.warn('could not change the VAD threshold', String(error));
          }
          break;
        case 'end':
          if (effect.notice) yield* put(alertShown(effect.notice));
          return false;
      }
    }
    return true;
  }
  function* feedEvent(event: CallEvent) {
    const [after, effects] = next(state, event, env());
    state = after;
    return yield* perform(effects);
  }
  /** The echo gate moves to the avatar's current stream, if a reconnect replaced it. */
  function* followAvatarStream() {
    const stream = remoteMedia.get();
    if (stream === farEnd) return;
    farEnd = stream;
    const gated = pipeline.setFarEnd(stream);
    yield* feedEvent({ type: 'gateMoved', gated, speaking: (yield* select(selectAvatarActivity)) === 'speaking' });
  }
  function* voiceEvent(event: VoiceEvent) {
    switch (event.type) {
      case 'recognizing':
      case 'recognized': {
        if (event.recognizer !== recognizers.id) return true;
        const at = event.atMs !== undefined ? { atMs: event.atMs } : {};
        if (event.type === 'recognizing') return yield* feedEvent({ type: 'recognizing', text: event.text, ...at });
        const avatarTexts = yield* select(selectRecentAvatarTexts);
        return yield* feedEvent({ type: 'recognized', text: event.text, ...at, receivedMs: feed.receivedMs, avatarTexts });
      }
      case 'recognizerFailed':
        if (event.recognizer !== recognizers.id) return true;
        return yield* feedEvent({ type: 'recognizerFailed', connectionLost: event.connectionLost, details: event.details });
      case 'audioBack':
        return yield* feedEvent({ type: 'audioBack', muted: yield* select(selectMuted), received: feed.received });
      default:
        return yield* feedEvent(event);
    }
  }

  // Buffered: the loop also waits on the pipeline (mute, thresholds), and a Hang up or a
  // mute tapped during such a wait must not be lost (a lost Hang up left the call running).
  const controls = yield* actionChannel(isControl, buffers.expanding<Action>(8));
  const avatarStreams = avatarStreamChannel(remoteMedia);
  try {
    // The stream may have changed while the call was starting.
    yield* followAvatarStream();
    yield* perform(started[1]);
    for (;;) {
      const { control, ...wake } = yield* race({
        event: take(events.channel),
        control: take(controls),
        tick: until(nextDeadline(state.sentences, TIMING)),
        ready: call(settle, pending ?? never()),
        restart: until(state.recognizer.restartAt),
        audioCheck: until(state.audioCheckAt),
        avatarStream: take(avatarStreams),
        detector: state.detector.status === 'loading' ? call(() => pipeline.detecting) : call(never),
      });
      let going = true;
      if (wake.detector !== undefined) yield* feedEvent({ type: 'detectorSettled', joined: wake.detector, receivedMs: feed.receivedMs });
      if (wake.avatarStream) yield* followAvatarStream();
      // The avatar's next reply is heard again.
      if (control && isNlpReady(control)) feedSync({ type: 'release' });
      if (control && callLeft.match(control)) {
        yield* feedEvent({ type: 'hangUp' });
        return;
      }
      if (going && wake.audioCheck) going = yield* feedEvent({ type: 'audioCheckDue', received: feed.received });
      if (going && wake.restart) going = yield* feedEvent({ type: 'restartDue' });
      if (going && wake.ready) {
        pending = null;
        const settled = wake.ready;
        going = yield* feedEvent(
          settled.error === undefined
            ? { type: 'recognizerSettled', ok: true, backlog: feed.handedOver }
            : { type: 'recognizerSettled', ok: false, error: String(settled.error) },
        );
      }
      if (going && wake.tick) going = yield* feedEvent({ type: 'tick' });
      if (going && wake.event) going = yield* voiceEvent(wake.event);
      if (going && control && muteToggled.match(control)) going = yield* feedEvent({ type: 'muteToggled', muted: yield* select(selectMuted), received: feed.received });
      if (going && control && langChosen.match(control)) going = yield* feedEvent({ type: 'langChosen', lang: control.payload });
      if (going && control && signalingResumed.match(control)) going = yield* feedEvent({ type: 'networkChanged', receivedMs: feed.receivedMs });
      if (!going) return;
      // The outputs go, then the threshold follows the avatar.
      yield* feedEvent({ type: 'wakeEnded' });
      yield* feedEvent({ type: 'avatarLooked', speaking: (yield* select(selectAvatarActivity)) === 'speaking' });
    }
  } finally {
    controls.close();
    avatarStreams.close();
    feedSync({ type: 'release' });
  }
}
