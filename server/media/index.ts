/**
 * The stand-in's media server for one room at a time: what SRS and the avatar renderer are in
 * production. The HTTP app creates one pipeline per started room and answers WHEP through it.
 */
import type { EventEmitter } from 'node:events';
import { RoomMedia } from './pipeline.ts';

export interface SpeechHandle {
  durationMs: number;
  finished: Promise<'done' | 'interrupted'>;
}

/** Emits 'peer-connected' (peerId) and 'peer-closed' (peerId). */
export interface MediaPipeline extends EventEmitter {
  /** Resolves once RTP is flowing from both encoders. */
  readonly ready: Promise<void>;
  /** True after ready, false after close. */
  isActive(): boolean;
  /** Throws WhepOfferError on garbage or unsupported SDP. */
  answerWhep(offerSdp: string): Promise<{ answerSdp: string; peerId: string }>;
  closePeer(peerId: string): void;
  /** Replaces any current speech; resolves when its audio starts. */
  speak(text: string, lang: 'en' | 'zh'): Promise<SpeechHandle>;
  /** At once: the next 20 ms of audio is silence. */
  stopSpeaking(): void;
  /** Closes every peer connection (fault injection). */
  dropPeers(): void;
  peerCount(): number;
  stats(): { sendBytes: number; frames: number; kbps: number; width: number; height: number };
  /** Kills the ffmpeg children and closes peers; idempotent; never leaks processes. */
  close(): Promise<void>;
}

/** hostAddresses: the ICE host candidates (default loopback only); see server/lan.ts. */
export function createMediaPipeline(opts: { roomId: string; hostAddresses?: readonly string[] }): MediaPipeline {
  return new RoomMedia(opts.roomId, opts.hostAddresses);
}

export { WhepOfferError } from './offer.ts';
export { generateAvatarPhoto } from './photo.ts';
