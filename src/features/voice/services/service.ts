/**
 * The voice pipeline and the speech recognizer as the voice sagas see them (saga
 * context `voice`). A thin seam over src/features/voice/services/pipeline.ts and
 * speechRecognizer.ts: the only thing it adds is the environment's speech host, so
 * sagas never read the environment and tests pass a fake without module mocks.
 */
import { avatarAudioElement } from '../../../services/avatarAudio.ts';
import { DetectorKeeper } from './detectorKeeper.ts';
import {
  browserVoiceDeps,
  prefetchVoice,
  startVoicePipeline,
  type VoicePipeline,
  type VoicePipelineDeps,
  type VoicePipelineOptions,
} from './pipeline.ts';
import { createRecognizer, type Recognizer, type RecognizerConfig } from './speechRecognizer.ts';

export type VoiceRecognizerConfig = Omit<RecognizerConfig, 'host'>;

/** A pipeline as the sagas get it: stop() releases it (and hands its detector back to the service). */
export type CallPipeline = Omit<VoicePipeline, 'stop'> & { stop(): Promise<void> };

export interface VoiceService {
  /**
   * Starts microphone capture, the capture worklet and the VAD worker. Everything before
   * its first await runs synchronously, so calling it in a user gesture's call stack
   * keeps the gesture (iOS needs one to start an AudioContext). With voice detection it
   * takes the detector warmDetector() kept, if any; stop() hands it back for the next call.
   */
  startPipeline(options: VoicePipelineOptions): Promise<CallPipeline>;
  /** A recognizer fed by the caller's push stream; rejects with ConfigError on a bad config. */
  createRecognizer(config: VoiceRecognizerConfig): Promise<Recognizer>;
  /** Warms the Speech SDK chunk and the pipeline's assets; never rejects. */
  prefetch(): Promise<void>;
  /** Loads a voice detector in its worker, in the background, and keeps it for this session's calls. */
  warmDetector(): void;
  /** The session is over: the kept detector is disposed. Never rejects. */
  releaseDetector(): Promise<void>;
  /**
   * Holds the avatar's voice in the page (muted) or lets it go: a visitor who starts
   * talking over the avatar stops hearing it at once, before the server's answer to the
   * break, so the recognizer hears the visitor without the avatar's echo.
   */
  holdAvatarVoice(held: boolean): void;
  /**
   * The avatar's voice at `volume` (0 to 1; 1 is as sent) while a call's echo canceller warms
   * up (features/voice/sagas/echoWarmup.ts). iOS ignores a media element's volume: there the system's own
   * voice processing cancels the echo, and the call hears it at full level.
   */
  setAvatarVolume(volume: number): void;
  /**
   * The page has its audio back after another app took it (iOS pauses the page's media for
   * a phone call or Siri): the avatar's voice plays again if it was paused. Never while
   * the audio is taken, which would only be fighting the system for it.
   */
  resumeAvatarVoice(): void;
}

export interface VoiceServiceOptions {
  /** environment.speechHost: the stand-in's origin locally, null for fromSubscription. */
  speechHost: string | null;
}

export function createVoiceService(
  { speechHost }: VoiceServiceOptions,
  deps: VoicePipelineDeps = browserVoiceDeps,
): VoiceService {
  const keeper = new DetectorKeeper(() => deps.createVad({}));
  /** The avatar's voice as the page plays it (setAvatarVolume); every running call's echo gate follows it. */
  let avatarVolume = 1;
  const running = new Set<VoicePipeline>();
  /** A started pipeline as a call sees it: `stop` runs once, and the gate hears the avatar's volume until then. */
  const callOf = (pipeline: VoicePipeline, stop: () => Promise<void>): CallPipeline => {
    pipeline.setFarEndVolume(avatarVolume);
    running.add(pipeline);
    let stopping: Promise<void> | null = null;
    return {
      get sampleRate() {
        return pipeline.sampleRate;
      },
      get detecting() {
        return pipeline.detecting;
      },
      mute: (muted) => pipeline.mute(muted),
      setThresholds: (thresholds) => pipeline.setThresholds(thresholds),
      setFarEndAudible: (audible) => pipeline.setFarEndAudible(audible),
      setFarEndVolume: (volume) => pipeline.setFarEndVolume(volume),
      setFarEnd: (stream) => pipeline.setFarEnd(stream),
      stop: () => {
        running.delete(pipeline);
        return (stopping ??= stop());
      },
    };
  };
  const startPipeline = async (options: VoicePipelineOptions): Promise<CallPipeline> => {
    // Nothing is taken for a start that will not happen (it throws at once, still in the gesture).
    if (options.detectVoice === false || options.warm || options.signal?.aborted) {
      const pipeline = await startVoicePipeline(options, deps);
      return callOf(pipeline, () => pipeline.stop());
    }
    let pipeline: VoicePipeline;
    try {
      const handed = keeper.take();
      pipeline = await startVoicePipeline(handed ? { ...options, warm: handed.ready, warmCancel: handed.cancel } : options, deps);
    } catch (error) {
      keeper.give();
      throw error;
    }
    // stop() hands the detector back for the next call; once, however often it is called.
    // The keeper has it from the moment the stop starts: a call started meanwhile waits for it.
    return callOf(pipeline, () => {
      const abandon = new AbortController();
      const returning = pipeline.stop({ keepWarm: true, abandon: abandon.signal });
      keeper.give(returning, abandon);
      return returning.then(() => undefined);
    });
  };
  return {
    // An async function runs synchronously up to its first await, and so does
    // startVoicePipeline: the microphone and the AudioContext are still asked for in the gesture.
    startPipeline,
    createRecognizer: (config) => createRecognizer({ ...config, host: speechHost }),
    prefetch: () => prefetchVoice(),
    warmDetector: () => keeper.warm(),
    releaseDetector: () => keeper.release().catch(() => {}),
    holdAvatarVoice: (held) => {
      avatarAudioElement().muted = held;
    },
    setAvatarVolume: (volume) => {
      const audio = avatarAudioElement();
      audio.volume = Math.min(1, Math.max(0, volume));
      // As played: iOS keeps a media element's volume at 1 whatever is set, and there the
      // gate compares with the avatar at its full level.
      avatarVolume = audio.volume;
      for (const pipeline of running) pipeline.setFarEndVolume(avatarVolume);
    },
    resumeAvatarVoice: () => {
      const audio = avatarAudioElement();
      if (audio.paused && audio.srcObject) audio.play().catch(() => {});
    },
  };
}
