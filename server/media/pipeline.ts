/**
 * One room's media: a video encoder fed with avatar frames, an audio encoder fed with paced
 * speech or silence, their RTP received on loopback and fanned out to the room's WHEP peers.
 */
import { EventEmitter } from 'node:events';
import { randomInt } from 'node:crypto';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { recordEvent } from '../events.ts';
import { createLogger } from '../log.ts';
import { AvatarAnimator } from './animator.ts';
import { AVATAR_HEIGHT, AVATAR_WIDTH, avatarFrame, prerenderAvatarFrames } from './avatar.ts';
import { stopChild } from './children.ts';
import { AUDIO_RATE, audioEncoderArgs, startEncoder, videoCodec, videoEncoderArgs, videoProfile, type VideoCodec, type VideoProfile } from './encoders.ts';
import type { MediaPipeline, MediaStats, SpeechHandle } from './index.ts';
import { WhepGoneError } from './offer.ts';
import { AudioPacer } from './pacer.ts';
import { openRtpSocket, type RtpSocket } from './rtpSocket.ts';
import { startTicker, type Ticker } from './ticker.ts';
import { synthesize } from './tts.ts';
import { WhepPeers } from './whep.ts';

const log = createLogger('media');
const READY_TIMEOUT_MS = 15_000;
/** Frames queued in ffmpeg's stdin beyond this are dropped rather than buffered without bound. */
const MAX_QUEUED_FRAMES = 4;
const FRAME_BYTES = (AVATAR_WIDTH * AVATAR_HEIGHT * 3) / 2;
/** One second of 48 kHz s16 mono: an encoder further behind than that has stalled. */
const MAX_QUEUED_AUDIO_BYTES = AUDIO_RATE * 2;

export class RoomMedia extends EventEmitter implements MediaPipeline {
  readonly ready: Promise<void>;
  private readonly peers: WhepPeers;
  private readonly pacer: AudioPacer;
  private readonly animator: AvatarAnimator;
  private readonly seen = { video: false, audio: false };
  private readonly firstPackets: Promise<void>;
  private onFirstPackets!: () => void;
  private abortStart!: (err: Error) => void;
  private video: ChildProcessWithoutNullStreams | undefined;
  private audio: ChildProcessWithoutNullStreams | undefined;
  private sockets: RtpSocket[] = [];
  private videoTicker: Ticker | undefined;
  /** Publishing has started (the encoders run), as SRS's publish.active: before any media. */
  private publishing = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private speechGeneration = 0;
  private sendBytes = 0;
  private frames = 0;
  private rate = { start: performance.now(), bytes: 0, kbps: 0 };

  readonly profile: VideoProfile;
  readonly codec: VideoCodec;

  constructor(
    private readonly roomId: string,
    opts: { profile?: VideoProfile; codec?: VideoCodec; hostAddresses?: readonly string[] } = {},
  ) {
    super();
    this.profile = opts.profile ?? videoProfile();
    this.codec = opts.codec ?? videoCodec();
    this.peers = new WhepPeers(roomId, this.codec, undefined, opts.hostAddresses);
    this.peers.on('peer-connected', (id: string) => this.emit('peer-connected', id));
    this.peers.on('peer-closed', (id: string) => this.emit('peer-closed', id));
    this.peers.on('heard', () => this.emit('heard'));
    this.pacer = new AudioPacer((chunk) => this.writeAudio(chunk));
    this.animator = new AvatarAnimator(this.pacer);
    this.firstPackets = new Promise<void>((resolve, reject) => {
      this.onFirstPackets = resolve;
      this.abortStart = reject;
    });
    this.firstPackets.catch(() => undefined);
    this.ready = this.start();
    // Nobody may be waiting on `ready`; its failure is logged, not an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  private async start(): Promise<void> {
    const ssrc = { video: randomInt(1, 2 ** 31 - 1), audio: randomInt(1, 2 ** 31 - 1) };
    try {
      for (const kind of ['video', 'audio'] as const) {
        this.sockets.push(await openRtpSocket(ssrc[kind], (packet) => this.onRtp(kind, packet)));
      }
      if (this.closed) throw new Error('media pipeline closed before it was ready');
      const [videoPort, audioPort] = this.sockets.map((s) => s.port);
      avatarFrame({ mouth: 0, eyesClosed: false, lift: 0 }); // the first frame is needed at once
      const videoArgs = { port: videoPort ?? 0, ssrc: ssrc.video, srcWidth: AVATAR_WIDTH, srcHeight: AVATAR_HEIGHT, profile: this.profile, codec: this.codec };
      this.video = startEncoder('video', videoEncoderArgs(videoArgs), (d) => this.onEncoderExit('video', d));
      this.audio = startEncoder('audio', audioEncoderArgs({ port: audioPort ?? 0, ssrc: ssrc.audio }), (d) => this.onEncoderExit('audio', d));
      this.publishing = true;
      this.pacer.start();
      this.videoTicker = startTicker(1000 / this.profile.fps, () => this.writeFrame());
      void prerenderAvatarFrames(() => this.closed);
      const timer = setTimeout(() => this.abortStart(new Error(`no RTP from the encoders within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      await this.firstPackets.finally(() => clearTimeout(timer));
      log.info('media ready', { roomId: this.roomId, videoPid: this.video.pid, audioPid: this.audio.pid, profile: this.profile.name, codec: this.codec });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!this.closed) log.error('media pipeline failed to start', { roomId: this.roomId, error: message });
      void this.close();
      // A socket opened while close() was already running would otherwise stay bound.
      for (const socket of this.sockets) socket.close();
      throw err instanceof Error ? err : new Error(message);
    }
  }

  private writeFrame(): void {
    const stdin = this.video?.stdin;
    if (!stdin?.writable || stdin.writableLength > MAX_QUEUED_FRAMES * FRAME_BYTES) return;
    stdin.write(avatarFrame(this.animator.next(performance.now())));
    this.frames++;
  }

  private writeAudio(chunk: Buffer): void {
    const stdin = this.audio?.stdin;
    if (!stdin?.writable || stdin.writableLength > MAX_QUEUED_AUDIO_BYTES) return;
    stdin.write(chunk);
  }

  private onRtp(kind: 'video' | 'audio', packet: Buffer): void {
    if (!this.seen[kind]) {
      this.seen[kind] = true;
      if (this.seen.video && this.seen.audio) this.onFirstPackets();
    }
    const sent = this.peers.send(kind, packet);
    this.sendBytes += packet.length * sent;
    this.rate.bytes += packet.length * sent;
  }

  private onEncoderExit(kind: string, detail: { code: number | null; signal: string | null; stderr: string }): void {
    if (this.closed) return;
    log.error('encoder exited unexpectedly', { roomId: this.roomId, kind, ...detail });
    this.abortStart(new Error(`the ${kind} encoder exited (${detail.code ?? detail.signal}): ${detail.stderr || 'no message'}`));
    void this.close();
  }

  isActive(): boolean {
    return this.publishing && !this.closed;
  }

  async answerWhep(offerSdp: string, opts: { silent?: boolean; fromLoopback?: boolean } = {}): Promise<{ answerSdp: string; peerId: string }> {
    recordEvent('whep', 'in', { roomId: this.roomId, offerBytes: typeof offerSdp === 'string' ? Buffer.byteLength(offerSdp) : 0 });
    if (this.closed) throw new WhepGoneError(`room ${this.roomId} has no media: its pipeline is closed`);
    return this.peers.answer(offerSdp, opts);
  }

  closePeer(peerId: string): boolean {
    return this.peers.close(peerId);
  }

  dropPeers(): void {
    log.info('dropping every peer', { roomId: this.roomId, peers: this.peers.count() });
    this.peers.closeAll();
  }

  silencePeers(): void {
    log.info('dropping every peer silently', { roomId: this.roomId, peers: this.peers.count() });
    this.peers.silenceAll();
  }

  peerCount(): number {
    return this.peers.count();
  }

  async speak(text: string, lang: 'en' | 'zh'): Promise<SpeechHandle> {
    if (this.closed) throw new Error('media pipeline is closed');
    const generation = ++this.speechGeneration;
    let pcm: Int16Array;
    try {
      // The room's own line in the synthesis queue: another room's flood cannot silence this one.
      pcm = await synthesize(typeof text === 'string' ? text : '', lang === 'zh' ? 'zh' : 'en', AUDIO_RATE, this.roomId);
    } catch (err) {
      log.error('speech synthesis failed', { roomId: this.roomId, error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
    const durationMs = Math.round((pcm.length / AUDIO_RATE) * 1000);
    // A later speak() or a stopSpeaking() while espeak-ng was working wins over this one.
    if (generation !== this.speechGeneration || this.closed) return { durationMs, finished: Promise.resolve('interrupted') };
    const playback = this.pacer.play(pcm);
    await playback.started;
    return { durationMs: playback.durationMs, finished: playback.finished };
  }

  stopSpeaking(): void {
    this.speechGeneration++;
    this.pacer.stopSpeaking();
  }

  stats(): MediaStats {
    const now = performance.now();
    const elapsed = now - this.rate.start;
    if (elapsed >= 1000) this.rate = { start: now, bytes: 0, kbps: Math.round((this.rate.bytes * 8) / elapsed) };
    return { sendBytes: this.sendBytes, frames: this.frames, kbps: this.rate.kbps, width: this.profile.width, height: this.profile.height, codec: this.codec };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.publishing = false;
    this.abortStart(new Error('media pipeline closed before it was ready'));
    this.speechGeneration++;
    this.videoTicker?.stop();
    this.pacer.stop();
    // shutdown(), not closeAll(): an offer being answered right now must not add its peer afterwards.
    this.peers.shutdown();
    await Promise.all([this.video, this.audio].map((c) => (c ? stopChild(c) : undefined)));
    for (const socket of this.sockets) socket.close();
    log.info('media closed', { roomId: this.roomId });
  }
}
