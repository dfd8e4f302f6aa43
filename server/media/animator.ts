/**
 * Chooses the avatar's pose for each video frame: the mouth follows the loudness of the audio
 * being played right now, the eyes blink every few seconds, and the figure breathes slowly.
 */
import type { AvatarPose, MouthShape } from './avatar.ts';

const BLINK_MS = 140;
const BREATH_PERIOD_MS = 4200;
/** RMS thresholds (0..1 of full scale) for a half-open and an open mouth. */
const HALF_OPEN = 0.02;
const OPEN = 0.07;

export class AvatarAnimator {
  private envelope = 0;
  private nextBlinkAt: number;
  private blinkUntil = -Infinity;

  constructor(
    private readonly audio: { readonly level: number; readonly speaking: boolean },
    private readonly random: () => number = Math.random,
    startMs = performance.now(),
  ) {
    this.nextBlinkAt = startMs + this.blinkGap();
  }

  private blinkGap(): number {
    return 2500 + this.random() * 3000;
  }

  next(nowMs: number): AvatarPose {
    if (nowMs >= this.nextBlinkAt) {
      this.blinkUntil = nowMs + BLINK_MS;
      this.nextBlinkAt = nowMs + this.blinkGap();
    }
    const eyesClosed = nowMs < this.blinkUntil;
    // Instant attack, fast release: syllables open and close the mouth instead of a held gape.
    const level = this.audio.speaking ? this.audio.level : 0;
    this.envelope = Math.max(level, this.envelope * 0.45);
    const mouth: MouthShape = this.envelope >= OPEN ? 2 : this.envelope >= HALF_OPEN ? 1 : 0;
    const breath = (1 - Math.cos((2 * Math.PI * nowMs) / BREATH_PERIOD_MS)) / 2;
    const lift = Math.min(2, Math.round(breath * 2)) as 0 | 1 | 2;
    return { mouth, eyesClosed, lift };
  }
}
