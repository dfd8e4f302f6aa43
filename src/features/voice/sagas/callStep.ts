/**
 * The value a call's transition threads through its actions (callRegions.ts): the state
 * so far, the effects asked for so far, the sentences' outputs not carried out yet, and
 * the store's voice slice as the event's own actions leave it. Every helper here returns
 * a new value; nothing is changed in place.
 */
import type { Action } from '@reduxjs/toolkit';
import type { Lang } from '../../locale/localeSlice.ts';
import type { NoticeMessage } from '../../notices/noticesSlice.ts';
import { stepSentences, waitFrom, type SentenceEvent, type SentenceOutput } from '../sentences.ts';
import { voiceSlice, type VoiceState } from '../voiceSlice.ts';
import type { AvatarVoice } from '../echo.ts';
import { PENDING_TIMING, TIMING, type CallEffect, type CallEnv, type CallState, type InternalEvent } from './callState.ts';

export interface Moving {
  readonly s: CallState;
  readonly env: CallEnv;
  readonly effects: readonly CallEffect[];
  /** The sentences' outputs, each with the language it was made in; they are carried out at the end of the event. */
  readonly outputs: readonly { readonly output: SentenceOutput; readonly lang: Lang }[];
  /** Internal events the actions raised, handled once the event is. */
  readonly raised: readonly InternalEvent[];
  /** The store's voice slice: the env's, with the actions this event puts applied as the store applies them. */
  readonly voice: VoiceState;
  /** Set when the call ends (with its notice, or null for a hang-up). */
  readonly ended: { readonly notice: NoticeMessage | null } | null;
}

export function begin(s: CallState, env: CallEnv): Moving {
  return { s, env, effects: [], outputs: [], raised: [], voice: env.voice, ended: null };
}

export function change(m: Moving, update: Partial<CallState>): Moving {
  return { ...m, s: { ...m.s, ...update } };
}

export function doing(m: Moving, ...effects: CallEffect[]): Moving {
  return { ...m, effects: [...m.effects, ...effects] };
}

export function logged(m: Moving, level: 'debug' | 'info' | 'warn', message: string, data?: unknown): Moving {
  return doing(m, data === undefined ? { type: 'log', level, message } : { type: 'log', level, message, data });
}

/** A store action to put; the voice slice as the machine sees it follows. */
export function put(m: Moving, action: Action): Moving {
  return { ...doing(m, { type: 'put', action }), voice: voiceSlice.reducer(m.voice, action) };
}

export function raise(m: Moving, event: InternalEvent): Moving {
  return { ...m, raised: [...m.raised, event] };
}

/** Whether the recognizer is still connecting: a sentence that ends meanwhile waits longer for it (D6). */
export function recognizerPending(s: CallState): boolean {
  return s.regions.recognizer === 'connecting' || s.regions.recognizer === 'restartDueConnecting';
}

/** A sentence event; a sentence that ends while the recognizer works through its backlog waits for the catch-up. */
export function sentence(m: Moving, event: SentenceEvent): Moving {
  const { now } = m.env;
  const result = stepSentences(m.s.sentences, event, now, recognizerPending(m.s) ? PENDING_TIMING : TIMING, m.s.lang);
  const closing = result.state.closing;
  const catchUpUntil = m.s.recognizer.catchUpUntil;
  const sentences = closing && closing.deadline < catchUpUntil ? waitFrom(result.state, now, catchUpUntil - now) : result.state;
  const lang = m.s.lang;
  return { ...change(m, { sentences }), outputs: [...m.outputs, ...result.outputs.map((output) => ({ output, lang }))] };
}

/** Ends the sentence in progress: what is complete goes at the end of the event. */
export const flush = (m: Moving) => sentence(m, { type: 'flush' });

/** The call ends, after what is complete has gone. */
export function ending(m: Moving, notice: NoticeMessage | null): Moving {
  return { ...flush(m), ended: { notice } };
}

/** What the echo rule (echo.ts) reads of the avatar. */
export function avatarVoice(s: CallState): AvatarVoice {
  return { speaking: s.regions.avatar === 'speaking', spokeAt: s.avatar.spokeAt, gated: s.avatar.gated };
}
