/**
 * A test microphone that works in every engine (test harness only, never shipped): an
 * init script that makes `navigator.mediaDevices.getUserMedia({ audio })` return the
 * track of a Web Audio graph playing a WAV file, inside the page. Chromium has a
 * file-backed fake device (`--use-file-for-fake-audio-capture`); Firefox and WebKit do
 * not, so their lanes use this one, and it behaves like Chromium's: the file starts
 * playing when the microphone is opened, once or looped, and each open plays it from
 * the start. A stopped track closes its graph's AudioContext, as a real microphone
 * stops when its last track does.
 *
 * The script takes the platform's AudioContext when it is installed, so install it
 * before any instrumentation that wraps AudioContext (the counters would count the
 * microphone's own context otherwise).
 */
import { readFileSync } from 'node:fs';

export interface TestMicrophoneArgs {
  /** The WAV files it can play, base64, by name. */
  files: Record<string, string>;
  /** What the next getUserMedia plays; change it in the page with `__testMicrophone.select`. */
  play: Playing;
}

export interface Playing {
  /** One of `files`. */
  file: string;
  /** Loop the file (Chromium's fake device does by default). */
  loop: boolean;
  /** Seconds of silence before the file plays. */
  leadSeconds: number;
  /**
   * The avatar's own voice in the microphone, as a phone's echo canceller leaves it: the
   * page's received avatar audio (the `.avatar-video audio` element's stream), delayed and
   * attenuated, mixed with the file. Residual echo after cancellation is typically −35 to
   * −15 dB with 50 to 150 ms of acoustic and processing delay.
   */
  echo?: { gainDb: number; delayMs: number };
}

export interface TestMicrophoneState {
  /** getUserMedia calls that opened the test microphone. */
  opened: number;
  /** Tracks still live. */
  live: number;
  /** What the next getUserMedia plays. */
  select(play: Playing): void;
  /** When the file started playing at the last opening (Date.now() clock, ms). */
  fileStartedAt?: number;
  /**
   * Plays `file` into the microphone opened last, now (as the visitor speaking mid-call);
   * resolves with when it started (Date.now() clock, ms). Rejects when no microphone is open.
   */
  say(file: string): Promise<number>;
  /** Avatar streams the echo has come from, in order (a media reconnect brings a new one). */
  echoSources: number;
}

declare global {
  interface Window {
    __testMicrophone?: TestMicrophoneState;
  }
}

/** The arguments for `installTestMicrophone`: WAV files by name, and the first to play. */
export function testMicrophoneArgs(files: Record<string, string>, play: Playing): TestMicrophoneArgs {
  return { files: Object.fromEntries(Object.entries(files).map(([name, path]) => [name, readFileSync(path).toString('base64')])), play };
}

/**
 * Runs in the page before its scripts (Playwright's addInitScript, puppeteer's
 * evaluateOnNewDocument, or a WebDriver harness page). Self-contained: it is
 * serialized into the page.
 */
export function installTestMicrophone(args: TestMicrophoneArgs): void {
  const devices = navigator.mediaDevices as MediaDevices | undefined;
  if (!devices) return;
  const NativeContext = window.AudioContext;
  const original = devices.getUserMedia.bind(devices);
  let play = args.play;
  const decode = async (context: AudioContext, file: string) => {
    const binary = atob(args.files[file]!);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return context.decodeAudioData(bytes.buffer);
  };
  /** The graph of the microphone opened last, while its track is live. */
  let current: { context: AudioContext; destination: MediaStreamAudioDestinationNode } | null = null;
  const state: TestMicrophoneState = {
    opened: 0,
    live: 0,
    echoSources: 0,
    select: (next) => {
      if (!(next.file in args.files)) throw new Error(`the test microphone has no file ${next.file}`);
      play = next;
    },
    async say(file) {
      const open = current;
      if (!open) throw new Error('the test microphone is not open');
      if (!(file in args.files)) throw new Error(`the test microphone has no file ${file}`);
      const source = open.context.createBufferSource();
      source.buffer = await decode(open.context, file);
      source.connect(open.destination);
      source.start();
      return Date.now();
    },
  };
  Object.defineProperty(window, '__testMicrophone', { value: state, enumerable: false });
  // Its files, for a harness page that plays them itself (tests/engines/harness).
  Object.defineProperty(window, '__testMicrophoneFiles', { value: args.files, enumerable: false });

  /**
   * What hears the avatar's <audio> change, called in the same task as the change: its
   * `muted` and `volume` setters are wrapped, and its play and pause events listened to,
   * once per element.
   */
  const followers = new WeakMap<HTMLMediaElement, Set<() => void>>();
  const speakerListeners = (element: HTMLMediaElement): Set<() => void> => {
    let set = followers.get(element);
    if (set) return set;
    const listeners = new Set<() => void>();
    set = listeners;
    followers.set(element, listeners);
    const tell = () => listeners.forEach((listener) => listener());
    for (const name of ['muted', 'volume'] as const) {
      const own = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, name)!;
      Object.defineProperty(element, name, {
        configurable: true,
        get: () => own.get!.call(element) as unknown,
        set: (value: unknown) => {
          own.set!.call(element, value);
          tell();
        },
      });
    }
    element.addEventListener('pause', tell);
    element.addEventListener('play', tell);
    return listeners;
  };

  devices.getUserMedia = async (constraints?: MediaStreamConstraints) => {
    if (!constraints?.audio) return original(constraints);
    const context = new NativeContext();
    // A microphone runs whether or not the page was tapped: so does this one.
    void context.resume();
    const buffer = await decode(context, play.file);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.loop = play.loop;
    const destination = context.createMediaStreamDestination();
    destination.channelCount = 1;
    source.connect(destination);
    source.start(context.currentTime + play.leadSeconds);
    state.fileStartedAt = Date.now() + play.leadSeconds * 1000;
    const avatar = document.querySelector<HTMLAudioElement>('.avatar-video audio')?.srcObject;
    if (play.echo && avatar instanceof MediaStream && avatar.getAudioTracks().length > 0) {
      const delay = context.createDelay(1);
      delay.delayTime.value = play.echo.delayMs / 1000;
      const gain = context.createGain();
      const level = 10 ** (play.echo.gainDb / 20);
      const element = document.querySelector<HTMLAudioElement>('.avatar-video audio')!;
      const loudness = () => (element.muted || element.paused ? 0 : level * element.volume);
      gain.gain.value = loudness();
      delay.connect(gain).connect(destination);
      // The loudspeaker is the avatar's <audio> element: what it plays is what echoes, so a
      // media reconnect's new stream echoes as the old one did, a lowered volume (the echo
      // canceller's warm-up) echoes that much quieter, and muted or paused it makes no echo.
      let playing: MediaStream | null = null;
      let feed: MediaStreamAudioSourceNode | null = null;
      const follow = (stream: unknown) => {
        if (stream === playing) return;
        playing = stream instanceof MediaStream ? stream : null;
        feed?.disconnect();
        feed = null;
        if (!playing || playing.getAudioTracks().length === 0) return;
        feed = context.createMediaStreamSource(playing);
        feed.connect(delay);
        state.echoSources += 1;
      };
      follow(avatar);
      const speak = () => {
        if (context.state === 'closed') return;
        follow(element.srcObject);
        gain.gain.setTargetAtTime(loudness(), context.currentTime, 0.005);
      };
      // A loudspeaker goes quiet the moment the page mutes or lowers it: the echo follows
      // in the same task, not at the next poll, which a loaded main thread runs late (and
      // meanwhile the echo would go on under the visitor's first words, which the real one
      // does not). The element outlives calls, so its setters are wrapped once, and each
      // open microphone listens while it is open. The poll still catches a new stream.
      const listeners = speakerListeners(element);
      listeners.add(speak);
      const speaker = setInterval(() => {
        if (context.state === 'closed') {
          listeners.delete(speak);
          return clearInterval(speaker);
        }
        speak();
      }, 10);
    } else if (play.echo) {
      throw new DOMException('the test microphone has no avatar audio to echo', 'NotFoundError');
    }
    // A microphone sends samples, silent or not, for as long as it is open. Without an
    // input that never ends, Firefox's track stops carrying audio once the file has
    // played, and the recognizer never gets the silence that ends the last phrase.
    const floor = context.createConstantSource();
    floor.offset.value = 0;
    floor.connect(destination);
    floor.start();
    const stream = destination.stream;
    state.opened += 1;
    const graph = { context, destination };
    current = graph;
    for (const track of stream.getAudioTracks()) {
      state.live += 1;
      const stop = track.stop.bind(track);
      let stopped = false;
      track.stop = () => {
        stop();
        if (stopped) return;
        stopped = true;
        state.live -= 1;
        if (current === graph) current = null;
        // One track per stream: its graph has nothing left to feed.
        void context.close();
      };
    }
    return stream;
  };
}
