/**
 * The echo canceller's warm-up at the start of a call.
 *
 * A browser's echo canceller (Chromium's AEC3) opens in a cautious state: until it has heard
 * a few seconds of the page's own sound played with the microphone open, it suppresses what
 * the microphone picks up whenever that sound plays, the visitor's voice included. A question
 * spoken over the avatar in the first seconds of a call came through in scraps ("where is the
 * nearest store" arrived as "Solar."). LiveKit's agents meet the same: they keep the greeting
 * from being interrupted while the canceller calibrates; this product must let the visitor
 * interrupt, so the avatar's voice is lowered instead. At WARMUP_VOLUME its echo is too
 * weak to be suppressed over the visitor, while the canceller already hears it play;
 * once the avatar has spoken AEC_WARMUP_MS with the microphone open, its voice comes back
 * in RAMP_STEPS over RAMP_MS. Measured by bench/first-words.mjs (docs/decisions.md).
 */
import { call, delay, race, select, take } from 'typed-redux-saga';
import { selectAvatarActivity } from '../features/voice/voiceSlice.ts';
import type { VoiceService } from '../services/voice.ts';

/** The avatar's speech, heard with the microphone open, after which the canceller has settled. */
export const AEC_WARMUP_MS = 3000;
/**
 * The avatar's volume during the warm-up (about −46 dB). At 0.03 (−30 dB) a question spoken
 * over the greeting through a real echo path still lost its quiet consonants to the
 * canceller's suppression in half the runs ("the nearest store" as "the law"): bench/first-words.mjs.
 */
export const WARMUP_VOLUME = 0.005;
const RAMP_MS = 600;
const RAMP_STEPS = 6;

/** Lowers the avatar's voice for the warm-up: call in the Start call gesture, before the microphone opens. */
export function lowerAvatarForWarmup(voice: VoiceService): void {
  voice.setAvatarVolume(WARMUP_VOLUME);
}

function* isSpeaking() {
  return (yield* select(selectAvatarActivity)) === 'speaking';
}

/** Waits for the next action after which the avatar's speaking is `speaking` (no timer: actions only). */
function* untilSpeaking(speaking: boolean) {
  while ((yield* isSpeaking()) !== speaking) yield* take('*');
}

/**
 * Runs from the moment the call's microphone is open: adds up the time the avatar speaks and,
 * past AEC_WARMUP_MS of it, brings its voice back. Waits on actions, not a timer, so a call
 * whose avatar stays silent costs nothing. The caller sets the volume back to 1 however the
 * call ends (this saga may be cancelled at any step).
 */
export function* warmEchoCanceller(voice: VoiceService) {
  let spoken = 0;
  while (spoken < AEC_WARMUP_MS) {
    yield* untilSpeaking(true);
    const from = Date.now();
    yield* race({ stopped: call(untilSpeaking, false), done: delay(AEC_WARMUP_MS - spoken) });
    spoken += Date.now() - from;
  }
  for (let step = 1; step <= RAMP_STEPS; step += 1) {
    yield* delay(RAMP_MS / RAMP_STEPS);
    // A ramp on the loudness scale: each step the same number of dB louder.
    voice.setAvatarVolume(WARMUP_VOLUME ** (1 - step / RAMP_STEPS));
  }
}
