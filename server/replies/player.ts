/**
 * Plays one reply: nlp_ready, then each sentence is spoken by the avatar and
 * its text sent the moment the audio starts (so text and voice stay together),
 * media parts at their place, then nlp_end.
 *
 * Whoever aborts `signal` (a break, a newer message, the socket closing) owns
 * the ending: the player then sends nothing more. When the media pipeline
 * itself reports the speech as interrupted, the player ends the reply with
 * `interrupted: true`.
 */
import type { Logger } from '../log.ts';
import { withSynthesisSignal } from '../media/tts.ts';
import type { MediaPipeline, SpeechHandle } from '../rooms.ts';
import type { KbLang } from './knowledge.ts';
import { speechLang, splitSentences, type ReplyPart } from './reply.ts';

export type Speaker = Pick<MediaPipeline, 'speak' | 'stopSpeaking'>;
export type ServerFrame = Record<string, unknown> & { msg_type: string };

export interface PlayOptions {
  msgId: string;
  parts: readonly ReplyPart[];
  /** The session's language: the voice for text without letters or Han characters. */
  lang: KbLang;
  speaker: Speaker;
  send(frame: ServerFrame): void;
  signal: AbortSignal;
  log: Logger;
  /** How long past a sentence's duration to wait for `finished` before moving on. */
  graceMs?: number;
  /** How long to wait for speech to start before sending the text silently. */
  startTimeoutMs?: number;
}

export type PlayResult = 'done' | 'interrupted' | 'aborted';

const ABORTED = Symbol('aborted');
const TIMED_OUT = Symbol('timed-out');

/** Resolves with the promise's value, or ABORTED / TIMED_OUT, whichever comes first. */
function settle<T>(promise: Promise<T>, signal: AbortSignal, timeoutMs: number): Promise<T | typeof ABORTED | typeof TIMED_OUT> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(TIMED_OUT), timeoutMs);
    const onAbort = (): void => finish(ABORTED);
    function finish(value: T | typeof ABORTED | typeof TIMED_OUT): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(finish, (err: unknown) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
  });
}

export async function playReply(opts: PlayOptions): Promise<PlayResult> {
  const { msgId, send, signal, speaker, log } = opts;
  const graceMs = opts.graceMs ?? 3_000;
  const startTimeoutMs = opts.startTimeoutMs ?? 10_000;
  if (signal.aborted) return 'aborted';
  send({ msg_type: 'command', command: 'nlp_ready', msg_id: msgId });

  let running = false;
  const markRunning = (): void => {
    if (running) return;
    running = true;
    send({ msg_type: 'command', command: 'nlp_running', msg_id: msgId });
  };
  const end = (interrupted: boolean): PlayResult => {
    send({ msg_type: 'command', command: 'nlp_end', msg_id: msgId, ...(interrupted ? { interrupted: true } : {}) });
    return interrupted ? 'interrupted' : 'done';
  };

  for (const part of opts.parts) {
    if (!('text' in part)) {
      markRunning();
      send({ msg_type: 'tts', msg_id: msgId, ...part });
      continue;
    }
    for (const sentence of splitSentences(part.text)) {
      let handle: SpeechHandle | null = null;
      try {
        // The synthesis stops with the reply: an interrupted reply leaves no espeak-ng behind.
        const speech = withSynthesisSignal(signal, () => speaker.speak(sentence, speechLang(sentence, opts.lang)));
        const started = await settle(speech, signal, startTimeoutMs);
        if (started === ABORTED) return 'aborted';
        if (started === TIMED_OUT) log.warn('speech did not start in time; sending the text silently', { msgId });
        else handle = started;
      } catch (err) {
        if (signal.aborted) return 'aborted';
        log.warn('speech failed; sending the text silently', { msgId, error: String(err) });
      }
      markRunning();
      send({ msg_type: 'tts', msg_id: msgId, text: sentence });
      if (!handle) continue;
      const outcome = await settle(handle.finished, signal, handle.durationMs + graceMs).catch(() => 'done' as const);
      if (outcome === ABORTED) return 'aborted';
      if (outcome === 'interrupted') return end(true);
    }
  }
  markRunning();
  return end(false);
}
