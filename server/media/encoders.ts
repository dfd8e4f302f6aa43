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
export const VIDEO_FPS = 15;
export const AUDIO_RATE = 48_000;
/** Leaves room for SRTP and the header extensions werift adds under a 1280-byte path MTU. */
const RTP_PACKET_BYTES = 1100;

export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH ?? 'ffmpeg';
}

function rtpUrl(port: number): string {
  // RTCP goes to the same port, where it is recognised and dropped, instead of to port+1,
  // which could belong to anyone.
  return `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=${RTP_PACKET_BYTES}`;
}

export function videoEncoderArgs(o: { port: number; ssrc: number; width: number; height: number }): string[] {
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
    ...['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${o.width}x${o.height}`, '-r', String(VIDEO_FPS), '-i', 'pipe:0'],
    ...['-an', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-threads', '1'],
    // A keyframe every second, so a late joiner or a reconnect shows a picture quickly: nobody
    // forwards the browser's keyframe requests to this encoder.
    ...['-g', String(VIDEO_FPS), '-keyint_min', String(VIDEO_FPS), '-lag-in-frames', '0', '-auto-alt-ref', '0'],
    ...['-b:v', '600k', '-maxrate', '800k', '-bufsize', '400k', '-error-resilient', '1'],
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
