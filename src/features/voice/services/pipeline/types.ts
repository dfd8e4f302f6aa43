/**
 * What the voice pipeline offers and what it asks of the browser: the options a call starts
 * with, the running pipeline, the detector kept between calls, and the pipeline's error.
 * Types, the error class and a message helper only, so every part of the pipeline can import
 * them without importing each other.
 */
import type { CreateWorkletNode } from '../../workers/capture.client.ts';
import type { VadThresholds } from '../../workers/protocol.ts';
import type { CreateVadOptions, VadClient } from '../../workers/vad.client.ts';
import type { FrameEvent } from '../../workers/vad/frameProcessor.ts';

/**
 * denied: the permission was refused. unavailable: there is no microphone (or it went
 * away). permission: the request for the microphone failed without an answer to it (the
 * page may not ask, or the browser could not); failed: anything else.
 */
export type MicErrorKind = 'denied' | 'unavailable' | 'permission' | 'failed';

export class VoicePipelineError extends Error {
  override readonly name = 'VoicePipelineError';
  constructor(
    readonly kind: MicErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type SpeechEndEvent = Extract<FrameEvent, { type: 'speechEnd' }>;
export type MisfireEvent = Extract<FrameEvent, { type: 'misfire' }>;

export interface VoicePipelineOptions {
  onSpeechStart?(event: { frame: number }): void;
  onSpeechEnd?(event: SpeechEndEvent): void;
  onMisfire?(event: MisfireEvent): void;
  /** 96 ms of 16 kHz mono 16-bit PCM, for the recognizer's push stream. */
  onPcm16?(pcm: Int16Array): void;
  onStats?(stats: { frames: number; dropped: number; inferMsMedian: number; inferMsP95: number }): void;
  /** The microphone went away ('unavailable') or voice detection broke ('failed'). */
  onError?(error: VoicePipelineError): void;
  /**
   * The page lost its audio mid-call: another app took it (iOS moves the context to
   * 'interrupted' for a phone call, Siri or an alarm), or the browser suspended it and it
   * did not come back. Nothing useful reaches voice detection until onAudioBack.
   */
  onAudioLost?(state: string): void;
  /** The context runs again after onAudioLost. */
  onAudioBack?(): void;
  vadOptions?: Omit<CreateVadOptions, 'signal'>;
  /**
   * The avatar's received audio (a call): the capture worklet's echo gate compares the
   * microphone's level with it, and voice detection hears silence where the microphone
   * carries only the avatar's echo (ECHO_GATE_DB). Given at all (null too: no avatar
   * stream at the moment), the gate is built and setFarEnd follows the avatar's stream.
   */
  farEnd?: MediaStream | null;
  /**
   * false: no voice detection at all (hold to talk, where the finger marks the sentence):
   * no VAD worker, model or inference, and nothing to wait for but the microphone and the
   * worklet. Default true.
   */
  detectVoice?: boolean;
  /**
   * A VAD kept from an earlier call's stop({ keepWarm: true }), or one still loading (a
   * promise; null when it could not load, and a new one is made): it is taken over once it
   * has loaded, and disposed if the start fails.
   */
  warm?: WarmVoice | Promise<WarmVoice | null>;
  /**
   * Stops the load of the `warm` detector if it is still under way (its promise then gives
   * null): called when this call will not take it after all (the start failed, or the call
   * stopped before it arrived and is not keeping it).
   */
  warmCancel?: () => void;
  /** Aborting while starting releases whatever was created and rejects. */
  signal?: AbortSignal;
}

/** A VAD worker with its model loaded, kept between calls. */
export interface WarmVoice {
  readonly vad: VadClient;
  dispose(): Promise<void>;
}

export interface VoicePipeline {
  /** The AudioContext's rate (what the worklet resamples from). */
  readonly sampleRate: number;
  /**
   * The pipeline starts as soon as the microphone is captured, before voice detection is
   * ready (its model may take seconds to load on a slow phone). Resolves true once the
   * detector hears the microphone; false when it never will: no voice detection asked for,
   * the pipeline stopped first, or the detector could not load (onError says so). Never rejects.
   */
  readonly detecting: Promise<boolean>;
  mute(muted: boolean): Promise<void>;
  /** E.g. a higher positive threshold while the avatar speaks (anti-barge-in). */
  setThresholds(thresholds: Partial<VadThresholds>): Promise<void>;
  /** The page holds the avatar's voice (false) or plays it (true): the echo gate follows. */
  setFarEndAudible(audible: boolean): void;
  /** The avatar's voice plays at `volume` (0 to 1) of its received level: the echo gate follows. */
  setFarEndVolume(volume: number): void;
  /**
   * The avatar's stream changed (a media reconnect): the echo gate compares with the new
   * one. Returns whether the gate now has the avatar's audio (false without a gate).
   */
  setFarEnd(stream: MediaStream | null): boolean;
  /**
   * Releases everything; with keepWarm the VAD worker survives and is returned (void if it
   * could not load or answer). A detector still loading is returned once loaded, unless
   * `abandon` aborts first: its load then stops.
   */
  stop(): Promise<void>;
  stop(options: { keepWarm: true; abandon?: AbortSignal }): Promise<WarmVoice | void>;
  stop(options?: { keepWarm?: boolean; abandon?: AbortSignal }): Promise<WarmVoice | void>;
}

/** The browser, injectable so the wiring is tested without one. */
export interface VoicePipelineDeps {
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  createAudioContext(): AudioContext;
  createWorkletNode: CreateWorkletNode;
  createVad(options: CreateVadOptions): VadClient;
  workletUrl: string;
  /**
   * The page's audio session (Safari 16.4+ `navigator.audioSession`): 'play-and-record'
   * while the microphone is open, 'playback' otherwise, so iOS does not move the avatar's
   * voice to the earpiece at call volume for longer than the microphone is in use.
   */
  setAudioSession?(type: AudioSessionKind): void;
}

export type AudioSessionKind = 'playback' | 'play-and-record';

/** An error's message, whatever was thrown. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
