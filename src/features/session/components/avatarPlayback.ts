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
