/**
 * A hook point between the avatar's media elements and whoever needs to start
 * them from a tap elsewhere (the tap-to-play alert). Playing must happen
 * synchronously inside the tap's handler, so this is a direct call rather than
 * a Redux action handled later in an effect.
 */
type Player = () => void;

let current: Player | null = null;

/** AvatarVideo registers its play function while mounted; returns the unregister function. */
export function registerAvatarPlayer(player: Player): () => void {
  current = player;
  return () => {
    if (current === player) current = null;
  };
}

/** Starts the avatar's video and audio; false when no avatar is mounted. */
export function playAvatar(): boolean {
  if (!current) return false;
  current();
  return true;
}

/**
 * What the avatar's two play() calls (the muted picture, the separate voice) came to:
 * - playing: both play;
 * - blocked: the browser holds the sound back until a tap (autoplay policy, NotAllowedError);
 * - superseded: a newer source replaced the one being started (AbortError);
 * - videoFailed: the picture cannot play ("Playback failed, please refresh" when tapped);
 * - audioFailed: the picture plays but the voice cannot, for a reason other than the
 *   autoplay policy ("Audio playback error").
 */
export type PlayOutcome = 'playing' | 'blocked' | 'superseded' | 'videoFailed' | 'audioFailed';

function errorName(error: unknown): string {
  return error instanceof Error || error instanceof DOMException ? error.name : typeof error;
}

/** The error name of a play() that failed, null for one that played. */
export function failureOf(result: PromiseSettledResult<unknown>): string | null {
  return result.status === 'rejected' ? errorName(result.reason) : null;
}

export function playOutcome(video: PromiseSettledResult<unknown>, audio: PromiseSettledResult<unknown>): PlayOutcome {
  const failures = [failureOf(video), failureOf(audio)];
  if (failures.every((name) => name === null)) return 'playing';
  if (failures.includes('NotAllowedError')) return 'blocked';
  if (failures.includes('AbortError')) return 'superseded';
  return failures[0] !== null ? 'videoFailed' : 'audioFailed';
}
