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

export interface MediaStats {
  sendBytes: number;
  frames: number;
  kbps: number;
  width: number;
  height: number;
  codec: 'h264' | 'vp8';
}

/**
 * Emits 'peer-connected' (peerId), 'peer-closed' (peerId) and 'heard' (a viewer's STUN binding
 * request came in: ICE consent, the visitor's sign of life).
 */
export interface MediaPipeline extends EventEmitter {
  /** Resolves once RTP is flowing from both encoders. */
  readonly ready: Promise<void>;
  /**
   * True once publishing has started (the encoders are running), before any media has come
   * out of them, as SRS sets publish.active when a publisher starts; false after close.
   */
  isActive(): boolean;
  /**
   * Throws WhepOfferError on garbage or unsupported SDP, WhepBusyError when the room has no free
   * peer, WhepGoneError when the pipeline is (or gets) closed before the answer: no peer is
   * left behind then. `fromLoopback`: the offer came from this machine, so loopback candidates
   * are offered too (never to another device, which cannot reach them).
   */
  answerWhep(offerSdp: string, opts?: { silent?: boolean; fromLoopback?: boolean }): Promise<{ answerSdp: string; peerId: string }>;
  /** False when the room has no such peer (never had, or it closed already). */
  closePeer(peerId: string): boolean;
  /** Replaces any current speech; resolves when its audio starts. */
  speak(text: string, lang: 'en' | 'zh'): Promise<SpeechHandle>;
  /** At once: the next 20 ms of audio is silence. */
  stopSpeaking(): void;
  /** Closes every peer connection (fault injection). */
  dropPeers(): void;
  /** Drops every peer as SRS's API kick does: nothing more is sent or answered (fault media-silent). */
  silencePeers(): void;
  peerCount(): number;
  stats(): MediaStats;
  /** Kills the ffmpeg children and closes peers; idempotent; never leaks processes. */
  close(): Promise<void>;
}

/** hostAddresses: the ICE host candidates (default loopback only); see server/lan.ts. */
export function createMediaPipeline(opts: { roomId: string; hostAddresses?: readonly string[] }): MediaPipeline {
  return new RoomMedia(opts.roomId, opts.hostAddresses ? { hostAddresses: opts.hostAddresses } : {});
}

export { WhepBusyError, WhepGoneError, WhepOfferError } from './offer.ts';
export { generateAvatarPhoto } from './photo.ts';
