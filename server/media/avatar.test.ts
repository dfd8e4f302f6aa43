import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AvatarAnimator } from './animator.ts';
import { AVATAR_HEIGHT, AVATAR_WIDTH, avatarFrame, type AvatarPose } from './avatar.ts';
import { generateAvatarPhoto } from './photo.ts';

const W = AVATAR_WIDTH;

/** Sum of absolute luma differences inside a rectangle of two I420 frames. */
function lumaDiff(a: Buffer, b: Buffer, x0: number, y0: number, x1: number, y1: number): number {
  let sum = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) sum += Math.abs((a[y * W + x] ?? 0) - (b[y * W + x] ?? 0));
  return sum;
}

const pose = (p: Partial<AvatarPose>): AvatarPose => ({ mouth: 0, eyesClosed: false, lift: 0, ...p });
const MOUTH = [150, 310, 210, 360] as const;
const EYES = [120, 240, 240, 285] as const;

describe('avatar frames', () => {
  it('are portrait I420 frames of the advertised size', () => {
    expect([AVATAR_WIDTH, AVATAR_HEIGHT]).toEqual([360, 640]);
    expect(avatarFrame(pose({})).length).toBe((360 * 640 * 3) / 2);
  });

  it('differ around the mouth between closed, half open and open, and nowhere else', () => {
    const [closed, half, open] = ([0, 1, 2] as const).map((mouth) => avatarFrame(pose({ mouth })));
    expect(lumaDiff(closed!, half!, ...MOUTH)).toBeGreaterThan(5000);
    expect(lumaDiff(half!, open!, ...MOUTH)).toBeGreaterThan(5000);
    expect(lumaDiff(closed!, open!, 0, 0, W, 300)).toBe(0);
  });

  it('differ around the eyes when they blink', () => {
    const a = avatarFrame(pose({}));
    const b = avatarFrame(pose({ eyesClosed: true }));
    expect(lumaDiff(a, b, ...EYES)).toBeGreaterThan(5000);
    expect(lumaDiff(a, b, ...MOUTH)).toBe(0);
  });

  it('move the figure but not the backdrop when breathing', () => {
    const a = avatarFrame(pose({}));
    const b = avatarFrame(pose({ lift: 2 }));
    expect(lumaDiff(a, b, 100, 150, 260, 450)).toBeGreaterThan(1000);
    expect(lumaDiff(a, b, 0, 0, 30, 60)).toBe(0);
  });

  it('paint a light background and a darker figure (a picture, not a flat frame)', () => {
    const f = avatarFrame(pose({}));
    expect(f[10 * W + 10]).toBeGreaterThan(200); // backdrop corner
    expect(f[150 * W + 180]).toBeLessThan(100); // hair
    expect(f[600 * W + 180]).toBeLessThan(120); // jacket
  });
});

describe('avatar animator', () => {
  it('blinks every few seconds while idle and keeps the mouth closed', () => {
    const audio = { level: 0, speaking: false };
    const animator = new AvatarAnimator(audio, () => 0.5, 0);
    const poses = Array.from({ length: 150 }, (_, i) => animator.next((i * 1000) / 15)); // 10 s
    const blinks = poses.filter((p, i) => p.eyesClosed && !poses[i - 1]?.eyesClosed).length;
    expect(blinks).toBeGreaterThanOrEqual(2);
    expect(blinks).toBeLessThanOrEqual(4);
    expect(poses.every((p) => p.mouth === 0)).toBe(true);
    expect(new Set(poses.map((p) => p.lift)).size).toBe(3);
  });

  it('opens the mouth with loud audio and closes it with silence while speaking', () => {
    const audio = { level: 0.2, speaking: true };
    const animator = new AvatarAnimator(audio, () => 0.5, 0);
    expect(animator.next(0).mouth).toBe(2);
    audio.level = 0.03;
    animator.next(66);
    animator.next(133);
    expect(animator.next(200).mouth).toBe(1);
    audio.level = 0;
    animator.next(266);
    animator.next(333);
    expect(animator.next(400).mouth).toBe(0);
  });
});

describe('generateAvatarPhoto', () => {
  it('writes a small 360x640 WebP', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'avatar-'));
    try {
      const file = join(dir, 'avatar.webp');
      await generateAvatarPhoto(file);
      const webp = await readFile(file);
      expect(webp.subarray(0, 4).toString('ascii')).toBe('RIFF');
      expect(webp.subarray(8, 12).toString('ascii')).toBe('WEBP');
      // Lossy (VP8): the frame's width and height are 14-bit fields after the start code.
      expect(webp.subarray(12, 16).toString('ascii')).toBe('VP8 ');
      expect(webp.readUInt16LE(26) & 0x3fff).toBe(360);
      expect(webp.readUInt16LE(28) & 0x3fff).toBe(640);
      // The page's largest paint: a third of the 32 KB PNG it replaced at most.
      expect(webp.length).toBeLessThan(11_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects with a clear error when the file cannot be written', async () => {
    await expect(generateAvatarPhoto('/nonexistent-dir/avatar.webp')).rejects.toThrow(/could not write/);
  });
});
