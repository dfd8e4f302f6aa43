/**
 * The pre-session screen's avatar photo: the idle video frame, as a WebP at quality 80 (about
 * 7 KB where the PNG was 32 KB, SSIM 0.996 to it). It is the page's largest contentful paint on
 * a phone, so its bytes on a slow link are on that figure's path. Full size (360x640): the
 * photo's ring shows its middle square at up to 176 CSS px, i.e. about its width at 2x DPR.
 */
import { AVATAR_HEIGHT, AVATAR_WIDTH, IDLE_POSE, drawAvatar } from './avatar.ts';
import { spawnTracked, stopChild } from './children.ts';
import { ffmpegPath } from './encoders.ts';
import { toRgb24 } from './yuv.ts';

const PHOTO_TIMEOUT_MS = 10_000;

export async function generateAvatarPhoto(file: string): Promise<void> {
  const rgb = toRgb24(drawAvatar(IDLE_POSE));
  const child = spawnTracked(ffmpegPath(), [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'],
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${AVATAR_WIDTH}x${AVATAR_HEIGHT}`, '-i', 'pipe:0'],
    ...['-frames:v', '1', '-c:v', 'libwebp', '-quality', '80', '-f', 'webp', file],
  ]);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
  child.stdout.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopChild(child, 200);
      reject(new Error('ffmpeg timed out writing the avatar photo'));
    }, PHOTO_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`ffmpeg failed to start: ${err.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg could not write ${file} (exit ${code}): ${stderr.trim()}`));
    });
    child.stdin.end(rgb);
  });
}
