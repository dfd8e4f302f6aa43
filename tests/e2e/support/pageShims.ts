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
    __audioInterruptions?: AudioInterruptions;
  }
}

/** Drives the page's AudioContexts as iOS does when another app takes the audio (emulateAudioInterruptions). */
export interface AudioInterruptions {
  /** A phone call or Siri starts: every context says 'interrupted', and the avatar's <audio> is paused. */
  begin(): void;
  /** It ends: the contexts say 'suspended' until the page asks for them back (resume()). */
  end(): void;
  /** resume() calls, and those made while interrupted (each freezes a WebKit context). */
  resumes: number;
  resumesWhileInterrupted: number;
  /** play() calls on the avatar's <audio> while interrupted (fighting the system for the sound). */
  avatarPlaysWhileInterrupted: number;
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

/**
 * iOS's audio interruptions (a phone call, Siri, an alarm): WebKit moves the page's
 * AudioContexts to 'interrupted' and pauses its media; a resume() asked of an interrupted
 * context never settles and leaves it frozen (stream-video-js #2249); when the interruption
 * ends the context is 'suspended' until the page resumes it. Emulated over Chromium's own
 * contexts by the state they report and their statechange events (their audio keeps
 * running, so other instrumentation on them still hears). Install after the test
 * microphone and the probes, which keep their own contexts out of it.
 */
export function emulateAudioInterruptions(): void {
  const Native = window.AudioContext;
  const contexts = new Set<InterruptibleContext>();
  let interrupted = false;
  const avatarAudio = () => document.querySelector<HTMLAudioElement>('.avatar-video audio');
  const record: AudioInterruptions = {
    resumes: 0,
    resumesWhileInterrupted: 0,
    avatarPlaysWhileInterrupted: 0,
    begin() {
      interrupted = true;
      for (const context of contexts) context.report('interrupted');
      avatarAudio()?.pause();
    },
    end() {
      interrupted = false;
      for (const context of contexts) if (context.reported === 'interrupted') context.report('suspended');
    },
  };
  class InterruptibleContext extends Native {
    reported: string | null = null;
    constructor(options?: AudioContextOptions) {
      super(options);
      contexts.add(this);
      this.addEventListener('statechange', () => {
        if (super.state === 'closed') contexts.delete(this);
      });
    }
    override get state(): AudioContextState {
      return (this.reported ?? super.state) as AudioContextState;
    }
    /** What the context says from now on (null: its own state), with a statechange. */
    report(state: string | null): void {
      this.reported = state;
      this.dispatchEvent(new Event('statechange'));
    }
    override resume(): Promise<void> {
      record.resumes += 1;
      if (this.reported === 'interrupted') {
        record.resumesWhileInterrupted += 1;
        return new Promise<void>(() => {});
      }
      if (this.reported === null) return super.resume();
      // Asked back once suspended: it runs again.
      return super.resume().then(() => this.report(null));
    }
  }
  window.AudioContext = InterruptibleContext;
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    if (interrupted && this === avatarAudio()) {
      record.avatarPlaysWhileInterrupted += 1;
      return Promise.reject(new DOMException('interrupted', 'NotAllowedError'));
    }
    return play.call(this);
  };
  Object.defineProperty(window, '__audioInterruptions', { value: record });
}

/** iOS Safari before 15.4 and older in-app WebViews: no crypto.randomUUID, AbortSignal.throwIfAborted or Array.prototype.at. */
export function withoutNewerPlatform(): void {
  Reflect.deleteProperty(Crypto.prototype, 'randomUUID');
  Reflect.deleteProperty(AbortSignal.prototype, 'throwIfAborted');
  Reflect.deleteProperty(Array.prototype, 'at');
}
