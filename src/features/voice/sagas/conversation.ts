/**
 * The saga that runs a hands-free call's statechart (callMachine.ts): it waits for
 * whatever comes next (voice detection, the recognizer, the visitor's controls, the
 * avatar, a deadline), hands it to the machine as one event, puts what the status line
 * shows of the call (callView) when it changes, and carries out the effects the machine
 * returns (a recognizer opened, the detector muted, a message sent), each once. The rules
 * themselves, with their reasons and figures, are listed in src/features/voice/README.md.
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
import { callMoved, muteToggled, selectAvatarActivity, selectMuted, selectVoice, type CallView } from '../voiceSlice.ts';
import { avatarStreamChannel } from '../../../sagas/channels/avatarStreamChannel.ts';
import { services } from '../../../sagas/context.ts';
import { createLogger } from '../../../services/logger.ts';
import type { CallPipeline, VoiceService } from '../services/service.ts';
import { next, startCall, type CallEffect, type CallEnv, type CallEvent } from './callMachine.ts';
import { callView, TIMING } from './callState.ts';
import type { VoiceEvent, VoiceEvents } from './events.ts';
import { thresholdsFor } from './outputs.ts';
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

const sameView = (a: CallView | null, b: CallView) => a !== null && a.paused === b.paused && a.muted === b.muted && a.hearing === b.hearing;

/** Runs a call (callMachine.ts) until it ends: takes one event per wake-up, carries out its effects. */
export function* converse(ctx: ConversationContext) {
  const { voice, pipeline, events, feed, scope, asr } = ctx;
  const { platform, remoteMedia } = yield* services();
  const recognizers = createRecognizerSlot(voice, scope, { events, feed });
  const newId = () => platform.randomUUID();
  let farEnd = ctx.farEnd;
  let pending: Promise<RecognizerHandle> | null = null;
  const started = startCall({ lang: yield* select(selectLang), avatarSpeaking: ctx.avatarSpeaking, echoGated: ctx.echoGated, received: feed.received, now: Date.now() });
  let state = started[0];
  let view: CallView | null = null;
  let lastEnv: CallEnv = { now: Date.now(), newId, voice: yield* select(selectVoice), avatarSaid: [] };

  /** Effects that need no saga: carried out at once. */
  const runSync = (effect: CallEffect): boolean => {
    switch (effect.type) {
      case 'openRecognizer':
        pending = recognizers.open({ lang: effect.lang, key: asr.appKey, region: asr.region, segmentationSilenceMs: effect.silenceMs }, effect.replayFromMs);
        return true;
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

  /** However the call ends (hung up, failed, cancelled with the session): the avatar is heard again, at once. */
  const over = () => {
    const [after, effects] = next(state, { type: 'callOver' }, { ...lastEnv, now: Date.now() });
    state = after;
    for (const effect of effects) if (!runSync(effect)) throw new Error(`a ${effect.type} cannot be carried out as the call ends`);
  };

  /** Carries out `effects`; false once the call is over. */
  function* perform(effects: CallEffect[]) {
    for (const effect of effects) {
      if (runSync(effect)) continue;
      switch (effect.type) {
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
  /** The status line follows the machine: its view of the call, put when it changes. */
  function* show() {
    const shown = callView(state);
    if (sameView(view, shown)) return;
    view = shown;
    yield* put(callMoved(shown));
  }
  /** Hands one event to the machine and carries out what it returns; false once the call is over. */
  function* feedEvent(event: CallEvent) {
    lastEnv = { now: Date.now(), newId, voice: yield* select(selectVoice), avatarSaid: yield* select(selectRecentAvatarTexts) };
    const [after, effects] = next(state, event, lastEnv);
    state = after;
    yield* show();
    return yield* perform(effects);
  }
  /** The echo gate moves to the avatar's current stream, if a reconnect replaced it. */
  function* gateMoved() {
    const stream = remoteMedia.get();
    if (stream === farEnd) return null;
    farEnd = stream;
    const gated = pipeline.setFarEnd(stream);
    return { type: 'gateMoved', gated, speaking: (yield* select(selectAvatarActivity)) === 'speaking' } as const;
  }
  /** A voice event as the machine's event (null: a recognizer's that has been replaced). */
  function* fromVoice(event: VoiceEvent) {
    switch (event.type) {
      case 'recognizing':
      case 'recognized': {
        if (event.recognizer !== recognizers.id) return null;
        const at = event.atMs !== undefined ? { atMs: event.atMs } : {};
        if (event.type === 'recognizing') return { type: 'recognizing', text: event.text, ...at } as const;
        return { type: 'recognized', text: event.text, ...at, receivedMs: feed.receivedMs } as const;
      }
      case 'recognizerFailed':
        if (event.recognizer !== recognizers.id) return null;
        return { type: 'recognizerFailed', connectionLost: event.connectionLost, details: event.details } as const;
      case 'audioBack':
        return { type: 'audioBack', muted: yield* select(selectMuted), received: feed.received } as const;
      default:
        return event;
    }
  }
  /** What the visitor or the avatar changed, as the machine's event. */
  function* fromControl(control: Action): Generator<unknown, CallEvent> {
    if (callLeft.match(control)) return { type: 'hangUp' };
    if (muteToggled.match(control)) return { type: 'muteToggled', muted: yield* select(selectMuted), received: feed.received };
    if (langChosen.match(control)) return { type: 'langChosen', lang: control.payload };
    if (signalingResumed.match(control)) return { type: 'networkChanged', receivedMs: feed.receivedMs };
    return { type: 'avatarChanged', nlpReady: isNlpReady(control) };
  }

  // Buffered: the loop also waits on the pipeline (mute, thresholds), and a Hang up or a
  // mute tapped during such a wait must not be lost (a lost Hang up left the call running).
  const controls = yield* actionChannel(isControl, buffers.expanding<Action>(8));
  const avatarStreams = avatarStreamChannel(remoteMedia);
  try {
    yield* show();
    // The stream may have changed while the call was starting.
    const moved = yield* gateMoved();
    if (moved) yield* feedEvent(moved);
    yield* perform(started[1]);
    for (;;) {
      // One wake-up, one event (a race has one winner).
      const wake = yield* race({
        event: take(events.channel),
        control: take(controls),
        tick: until(nextDeadline(state.sentences, TIMING)),
        ready: call(settle, pending ?? never()),
        restart: until(state.recognizer.restartAt),
        audioCheck: until(state.audioCheckAt),
        avatarStream: take(avatarStreams),
        detector: state.regions.detector === 'loading' ? call(() => pipeline.detecting) : call(never),
      });
      let event: CallEvent | null = null;
      if (wake.detector !== undefined) event = { type: 'detectorSettled', joined: wake.detector, receivedMs: feed.receivedMs };
      else if (wake.avatarStream) event = yield* gateMoved();
      else if (wake.control) event = yield* fromControl(wake.control);
      else if (wake.audioCheck) event = { type: 'audioCheckDue', received: feed.received };
      else if (wake.restart) event = { type: 'restartDue' };
      else if (wake.ready) {
        pending = null;
        event = wake.ready.error === undefined
          ? { type: 'recognizerSettled', ok: true, backlog: feed.handedOver }
          : { type: 'recognizerSettled', ok: false, error: String(wake.ready.error) };
      } else if (wake.tick) event = { type: 'tick' };
      else if (wake.event) event = yield* fromVoice(wake.event);
      if (event && !(yield* feedEvent(event))) return;
    }
  } finally {
    controls.close();
    avatarStreams.close();
    over();
  }
}
