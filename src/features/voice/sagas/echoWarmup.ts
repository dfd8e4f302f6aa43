/**
 * The echo canceller's warm-up, for a call started over the avatar's voice.
 *
 * A browser's echo canceller (Chromium's AEC3) opens in a cautious state: until it has heard
 * a few seconds of the page's own sound played with the microphone open, it suppresses what
 * the microphone picks up whenever that sound plays, the visitor's voice included. A question
 * spoken over the greeting in the first seconds of a call came through in scraps ("where is
 * the nearest store" arrived as "Solar.").
 *
 * So a reply the avatar is already speaking at the Start call tap is lowered to WARMUP_VOLUME,
 * where its echo is too weak to be suppressed over the visitor, until that reply has spoken
 * AEC_WARMUP_MS with the microphone open (then it comes back in RAMP_STEPS over RAMP_MS) or
 * ends, whichever is first. Nothing else is ever lowered: a call started while the avatar is
 * silent leaves it at full voice (the canceller has nothing to suppress the visitor under),
 * and every later reply, the answer to the visitor's first question included, plays at full
 * voice from its first word. That answer is what the visitor started the call for; lowering
 * it too, as the first version of this warm-up did, cost the first 3.6 s of every call's
 * first answer. Measured by bench/first-words.mjs (docs/decisions.md, "The first seconds of a call").
 */
import { call, delay, race, select, take } from 'typed-redux-saga';
import { selectSpeakingReply } from '../voiceSlice.ts';
import type { VoiceService } from '../services/service.ts';

/** The avatar's speech, heard with the microphone open, after which the canceller has settled. */
export const AEC_WARMUP_MS = 3000;
/**
 * The lowered reply's volume (about −46 dB). At 0.03 (−30 dB) a question spoken over the
 * greeting through a real echo path still lost its quiet consonants to the canceller's
 * suppression in half the runs ("the nearest store" as "the law"): bench/first-words.mjs.
 */
export const WARMUP_VOLUME = 0.005;
const RAMP_MS = 600;
const RAMP_STEPS = 6;

/** Lowers the reply the avatar is speaking: call in the Start call gesture, before the microphone opens. */
export function lowerForWarmup(voice: VoiceService): void {
  voice.setAvatarVolume(WARMUP_VOLUME);
}

/** Waits for the next action after which the avatar no longer speaks `reply` (no timer: actions only). */
function* untilOver(reply: string) {
  while ((yield* select(selectSpeakingReply)) === reply) yield* take('*');
  return true;
}

function* comeBack(voice: VoiceService) {
  yield* delay(AEC_WARMUP_MS);
  for (let step = 1; step <= RAMP_STEPS; step += 1) {
    yield* delay(RAMP_MS / RAMP_STEPS);
    // A ramp on the loudness scale: each step the same number of dB louder.
    voice.setAvatarVolume(WARMUP_VOLUME ** (1 - step / RAMP_STEPS));
  }
}

/**
 * Runs from the moment the call's microphone is open, for the reply lowerForWarmup lowered:
 * past AEC_WARMUP_MS of it, brings its voice back; if it ends (its end, a break, the next
 * reply) before that, at once, so the next reply is heard from its first word. The caller
 * sets the volume back to 1 however the call ends (this saga may be cancelled at any step).
 */
export function* warmEchoCanceller(voice: VoiceService, reply: string) {
  const { over } = yield* race({ over: call(untilOver, reply), warmed: call(comeBack, voice) });
  if (over) voice.setAvatarVolume(1);
}
