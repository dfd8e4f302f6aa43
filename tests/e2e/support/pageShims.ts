/**
 * Init scripts that make the page look like another browser or another deployment, for
 * the robustness tests of every engine lane (Playwright's addInitScript, puppeteer's
 * evaluateOnNewDocument). Each runs in the page before the app's scripts; the app itself
 * is unchanged. Never shipped.
 */

declare global {
  interface Window {
    __webkitAutoplay?: { refused: number; allowedInGesture: number };
    __iceCandidateErrors?: { count: number };
  }
}

/**
 * WebKit's autoplay rule (iOS Safari, every iPhone visitor): a media element plays with
 * sound only from within a user gesture, or once it has been played in one. Chromium and
 * Firefox let a later play() through after any tap, so the rule is emulated: an unmuted
 * play() outside a trusted input event, on an element never played inside one, is refused
 * with WebKit's NotAllowedError.
 */
export function emulateWebKitAutoplay(): void {
  const seen = { refused: 0, allowedInGesture: 0 };
  Object.defineProperty(window, '__webkitAutoplay', { value: seen });
  let inGesture = false;
  // WebKit's user-gesture events; the flag lasts for the event's own dispatch only.
  for (const type of ['click', 'pointerdown', 'pointerup', 'mousedown', 'mouseup', 'touchend', 'keydown', 'keyup']) {
    window.addEventListener(
      type,
      (event) => {
        if (!event.isTrusted) return;
        inGesture = true;
        setTimeout(() => (inGesture = false), 0);
      },
      true,
    );
  }
  const unlocked = new WeakSet<HTMLMediaElement>();
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    if (inGesture) {
      unlocked.add(this);
      seen.allowedInGesture += 1;
    } else if (!this.muted && !unlocked.has(this)) {
      seen.refused += 1;
      return Promise.reject(new DOMException('The request is not allowed by the user agent in the current context', 'NotAllowedError'));
    }
    return play.call(this);
  };
}

/** Runs in the page: whether the avatar's audio element plays its stream. */
export function avatarAudioPlayingInPage(): boolean {
  const audio = document.querySelector<HTMLAudioElement>('.avatar-video audio');
  return Boolean(audio && !audio.paused && audio.srcObject instanceof MediaStream && audio.srcObject.getAudioTracks().length > 0);
}

/**
 * A deployment whose ICE servers include one that cannot be reached (its host does not
 * resolve): the browser reports icecandidateerror for it (where it implements the event)
 * while the other candidates connect.
 */
export function withUnreachableStunServer(): void {
  const seen = { count: 0 };
  Object.defineProperty(window, '__iceCandidateErrors', { value: seen });
  const Native = window.RTCPeerConnection;
  class WithUnreachableServer extends Native {
    constructor(config?: RTCConfiguration) {
      super({ ...config, iceServers: [...(config?.iceServers ?? []), { urls: 'stun:stun.unreachable.invalid:3478' }] });
      this.addEventListener('icecandidateerror', () => (seen.count += 1));
    }
  }
  window.RTCPeerConnection = WithUnreachableServer;
}

/** iOS Safari before 15.4 and older in-app WebViews: no crypto.randomUUID, AbortSignal.throwIfAborted or Array.prototype.at. */
export function withoutNewerPlatform(): void {
  Reflect.deleteProperty(Crypto.prototype, 'randomUUID');
  Reflect.deleteProperty(AbortSignal.prototype, 'throwIfAborted');
  Reflect.deleteProperty(Array.prototype, 'at');
}
