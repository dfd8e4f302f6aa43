/**
 * The avatar's voice plays from one <audio> element that lives as long as the page.
 *
 * iOS Safari (WebKit) lets a media element play with sound only from within a user
 * gesture, or once it has been played in one. The avatar's stream arrives seconds after
 * the Start chat tap, so a play() then is refused on every iPhone. The element is
 * therefore played inside the tap (empty, silent), which unlocks it; later play() calls
 * on the same element, with the avatar's stream, are allowed. It is kept across
 * sessions, so the next session's start is unlocked too. Chromium lets any later play()
 * through after one tap (sticky activation), so it never shows the difference.
 */
import { createLogger } from './logger.ts';

const log = createLogger('session-ui');

let element: HTMLAudioElement | null = null;

/** The page's one avatar audio element (created on first use). */
export function avatarAudioElement(): HTMLAudioElement {
  if (!element) {
    element = document.createElement('audio');
    element.setAttribute('playsinline', '');
  }
  return element;
}

/**
 * Call synchronously inside the Start chat tap: plays the avatar's audio element within
 * the user gesture. It has no sound yet (an empty stream); its stream comes later.
 */
export function unlockAvatarAudio(): void {
  const audio = avatarAudioElement();
  if (!audio.paused) return;
  if (!audio.srcObject && typeof MediaStream === 'function') audio.srcObject = new MediaStream();
  try {
    // Not awaited: an empty stream may never start; calling play() in the gesture is what counts.
    void audio.play()?.catch((error: unknown) => log.debug('avatar audio unlock: play() refused', { error: String(error) }));
  } catch (error) {
    log.debug('avatar audio unlock failed', { error: String(error) });
  }
}
