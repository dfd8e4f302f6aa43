/**
 * The two long-running ffmpeg encoders of a room. Node feeds them raw media on stdin at real-time
 * pace; they send RTP with a payload type and SSRC we chose to a loopback port Node listens on.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createLogger } from '../log.ts';
import { spawnTracked } from './children.ts';

const log = createLogger('media');

export const VIDEO_PAYLOAD_TYPE = 96;
export const AUDIO_PAYLOAD_TYPE = 111;
export const AUDIO_RATE = 48_000;
/** Leaves room for SRTP and the header extensions werift adds under a 1280-byte path MTU. */
const RTP_PACKET_BYTES = 1100;

/**
 * What a real avatar stream looks like ('large', the default): 540x960 at 25 fps, about
 * 1.2 Mbit/s, which the specification's quality table rates above "good" on a clean link and
 * which gives the browser a real decode load. 'small' (360x640 at 15 fps) is for the test
 * lanes that run many sessions on a small machine. The avatar is drawn at 360x640 either way
 * and scaled by ffmpeg, so its picture and mouth movement are the same in both.
 */
export interface VideoProfile {
  name: 'large' | 'small';
  width: number;
  height: number;
  fps: number;
  kbps: number;
}

export const VIDEO_PROFILES: Record<VideoProfile['name'], VideoProfile> = {
  large: { name: 'large', width: 540, height: 960, fps: 25, kbps: 1200 },
  small: { name: 'small', width: 360, height: 640, fps: 15, kbps: 500 },
};

/** STANDIN_VIDEO_PROFILE=small|large; anything else is the default, large. */
export function videoProfile(env: NodeJS.ProcessEnv = process.env): VideoProfile {
  return env.STANDIN_VIDEO_PROFILE === 'small' ? VIDEO_PROFILES.small : VIDEO_PROFILES.large;
}

/**
 * H.264, as SRS serves WebRTC (it has no VP8). STANDIN_VIDEO_CODEC=vp8 exists only for
 * Debian's Firefox ESR, which offers H.264 only with the OpenH264 plugin it would download.
 */
export type VideoCodec = 'h264' | 'vp8';

export function videoCodec(env: NodeJS.ProcessEnv = process.env): VideoCodec {
  return env.STANDIN_VIDEO_CODEC === 'vp8' ? 'vp8' : 'h264';
}

/** The fmtp of the H.264 we send: constrained baseline 3.1, FU-A packetization, as browsers offer it. */
export const H264_FMTP = 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f';

export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH ?? 'ffmpeg';
}

function rtpUrl(port: number): string {
  // RTCP goes to the same port, where it is recognised and dropped, instead of to port+1,
  // which could belong to anyone.
  return `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=${RTP_PACKET_BYTES}`;
}

function codecArgs(codec: VideoCodec, profile: VideoProfile): string[] {
  const kbps = profile.kbps;
  // A keyframe every second, so a late joiner or a reconnect shows a picture quickly: nobody
  // forwards the browser's keyframe requests to this encoder.
  const gop = ['-g', String(profile.fps), '-keyint_min', String(profile.fps)];
  const rate = ['-b:v', `${kbps}k`, '-maxrate', `${Math.round(kbps * 1.3)}k`, '-bufsize', `${Math.round(kbps / 2)}k`];
  if (codec === 'vp8') {
    return ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-threads', '1', ...gop, '-lag-in-frames', '0', '-auto-alt-ref', '0', ...rate, '-error-resilient', '1'];
  }
  // Constrained baseline (no B-frames, CAVLC), level 3.1; zerolatency: no lookahead, one slice
  // per frame. SPS/PPS go in-band before every keyframe (the RTP muxer asks for no global header).
  return [
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-threads', '1'],
    ...['-profile:v', 'baseline', '-level:v', '3.1', '-bf', '0', ...gop, '-sc_threshold', '0'],
    ...rate,
  ];
}

export function videoEncoderArgs(o: { port: number; ssrc: number; srcWidth: number; srcHeight: number; profile: VideoProfile; codec: VideoCodec }): string[] {
  const { profile } = o;
  const scale = profile.width === o.srcWidth && profile.height === o.srcHeight ? [] : ['-vf', `scale=${profile.width}:${profile.height}:flags=bicubic`];
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
    ...['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${o.srcWidth}x${o.srcHeight}`, '-r', String(profile.fps), '-i', 'pipe:0'],
    ...['-an', ...scale, '-pix_fmt', 'yuv420p'],
    ...codecArgs(o.codec, profile),
    ...['-f', 'rtp', '-payload_type', String(VIDEO_PAYLOAD_TYPE), '-ssrc', String(o.ssrc), rtpUrl(o.port)],
  ];
}

export function audioEncoderArgs(o: { port: number; ssrc: number }): string[] {
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
    ...['-f', 's16le', '-ar', String(AUDIO_RATE), '-ac', '1', '-i', 'pipe:0'],
    ...['-vn', '-c:a', 'libopus', '-application', 'voip', '-frame_duration', '20', '-b:a', '32k'],
    ...['-f', 'rtp', '-payload_type', String(AUDIO_PAYLOAD_TYPE), '-ssrc', String(o.ssrc), rtpUrl(o.port)],
  ];
}

/**
 * Starts one encoder. `onExit` fires only for an exit nobody asked for, with ffmpeg's last words,
 * so the pipeline can report a dead encoder.
 */
export function startEncoder(
  name: 'video' | 'audio',
  args: string[],
  onExit: (detail: { code: number | null; signal: string | null; stderr: string }) => void,
): ChildProcessWithoutNullStreams {
  const child = spawnTracked(ffmpegPath(), args);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  child.stdout.resume();
  // A failed spawn can report both 'error' and 'exit': tell the pipeline once.
  let reported = false;
  const report = (code: number | null, signal: string | null, detail: string): void => {
    if (reported) return;
    reported = true;
    onExit({ code, signal, stderr: detail });
  };
  child.once('exit', (code, signal) => report(code, signal, stderr.trim()));
  child.once('error', (err) => report(null, null, err.message));
  log.info('encoder started', { name, pid: child.pid });
  return child;
}
