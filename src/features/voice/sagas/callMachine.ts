/**
 * A hands-free call as a statechart: parallel regions (call, audio, recognizer, detector,
 * speech, sentence, avatar, avatarVoice; callState.ts names their states, callRegions.ts has
 * each state's transitions) and one pure transition, `next(state, event, env)`, that returns
 * the next state and the effects to carry out, as data. The saga in conversation.ts feeds it
 * one event per wake-up and carries out the effects once; nothing here touches a service,
 * the store or the clock. README's table has the regions, their states and where each is
 * entered and left.
 */
import { transition } from './statechart.ts';
import { initialSentenceState } from '../sentences.ts';
import { NO_AUDIO_MS } from './resources.ts';
import { CALL_START_SILENCE_MS, type CallEffect, type CallEnv, type CallEvent, type CallState, type InternalEvent } from './callState.ts';
import { REGIONS, type Event } from './callRegions.ts';
import { begin, type Moving } from './callStep.ts';
import { outputEffects } from './outputs.ts';
import type { Lang } from '../../locale/localeSlice.ts';

export type { CallEffect, CallEnv, CallEvent } from './callState.ts';

export interface CallStart {
  lang: Lang;
  avatarSpeaking: boolean;
  echoGated: boolean;
  /** PCM chunks the feed has received already. */
  received: number;
  now: number;
}

/** The call as it starts, with its first recognizer opening. */
export function startCall({ lang, avatarSpeaking, echoGated, received, now }: CallStart): [CallState, CallEffect[]] {
  const state: CallState = {
    regions: {
      call: 'running',
      audio: 'live',
      recognizer: 'connecting',
      detector: 'loading',
      speech: 'quiet',
      sentence: 'listening',
      avatar: avatarSpeaking ? 'speaking' : 'silent',
      avatarVoice: 'heard',
    },
    lang,
    sentences: initialSentenceState,
    recognizer: { restarts: 0, restartAt: null, worked: false, catchUpUntil: 0, answeredToMs: 0 },
    detector: { fromMs: null, byRecognizer: null },
    avatar: { spokeAt: avatarSpeaking ? now : 0, gated: echoGated, raised: avatarSpeaking && !echoGated },
    audioCheckAt: received === 0 ? now + NO_AUDIO_MS : null,
  };
  return [state, [{ type: 'openRecognizer', lang, silenceMs: CALL_START_SILENCE_MS }]];
}

const handle = (m: Moving, event: Event) => transition(REGIONS, m, event);

/** The internal events the actions raised, each handled in turn (they may raise more). */
function handleRaised(m: Moving): Moving {
  let moved = m;
  while (moved.raised.length > 0) {
    const [first, ...rest] = moved.raised as [InternalEvent, ...InternalEvent[]];
    moved = handle({ ...moved, raised: rest }, first);
  }
  return moved;
}

/** The sentences' outputs go, in order; an interrupt lets the avatar's voice region hold its voice first. */
function release(m: Moving): Moving {
  let moved: Moving = { ...m, outputs: [] };
  for (const { output, lang } of m.outputs) moved = outputEffects(moved, output, lang, (at) => handle(at, { type: 'interrupted' }));
  return moved;
}

/**
 * The call's next state, and what to do, after `event`: every region takes its transition,
 * the sentences' outputs go, and (the call going on) the avatar is looked at as the event
 * left it, its own breaks and messages counted, for the echo rules and the VAD's threshold.
 */
export function next(state: CallState, event: CallEvent, env: CallEnv): [CallState, CallEffect[]] {
  let m = release(handleRaised(handle(begin(state, env), event)));
  if (m.ended) return [m.s, [...m.effects, { type: 'end', notice: m.ended.notice }]];
  if (event.type !== 'callOver') m = handle(m, { type: 'looked', speaking: m.voice.avatar === 'speaking' });
  return [m.s, [...m.effects]];
}
