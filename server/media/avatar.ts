/**
 * The stand-in's avatar: a friendly cartoon presenter drawn with pure pixel math, portrait
 * 360x640 so that it fills a phone screen. Frames are rendered once per pose and cached for the
 * whole process, so rooms started one after another pay the cost only once.
 */
import {
  Raster,
  arc,
  boxAround,
  egg,
  ellipse,
  hex,
  intersect,
  mix,
  roundedRect,
  subtract,
  triangle,
  union,
  type Rgb,
} from './raster.ts';
import { toI420 } from './yuv.ts';

export const AVATAR_WIDTH = 360;
export const AVATAR_HEIGHT = 640;

export type MouthShape = 0 | 1 | 2; // closed, half open, open
export interface AvatarPose {
  mouth: MouthShape;
  eyesClosed: boolean;
  /** Breathing lift of the whole figure in pixels, 0..2. */
  lift: 0 | 1 | 2;
}

const SKIN = hex('#f6d2b8');
const SKIN_SHADE = hex('#e7b096');
const HAIR = hex('#3a2622');
const HAIR_LIGHT = hex('#5a3a30');
const JACKET = hex('#2f5d8c');
const JACKET_DARK = hex('#244a70');
const SHIRT = hex('#fbfbfd');
const LINE = hex('#3b2420');
const IRIS = hex('#5b3a26');
const LIP = hex('#c2566a');
const MOUTH_IN = hex('#6a1e2c');
const TONGUE = hex('#e07886');
const BLUSH = hex('#f29aa0');
const WHITE: Rgb = [255, 255, 255];

function drawBackground(r: Raster): void {
  const top = hex('#d8eef3');
  const bottom = hex('#efe3f4');
  r.shade((x, y) => {
    const base = mix(top, bottom, y / AVATAR_HEIGHT);
    // A soft light behind the head draws the eye to the face.
    const glow = Math.max(0, 1 - Math.hypot(x - 180, (y - 250) * 0.8) / 230);
    return mix(base, WHITE, glow * glow * 0.7);
  });
  // Out-of-focus studio lights give the backdrop some depth.
  for (const [cx, cy, rad, op] of [
    [48, 120, 34, 0.25],
    [318, 90, 24, 0.3],
    [300, 400, 40, 0.18],
    [40, 470, 26, 0.2],
  ] as const) {
    r.fill(boxAround(cx, cy, rad, rad), ellipse(cx, cy, rad, rad), WHITE, op);
  }
}

function drawHairBack(r: Raster, dy: number): void {
  const cy = 250 + dy;
  // Long hair behind the head falls to the shoulders; the neck is drawn over it.
  const hairBack = union(ellipse(180, cy - 10, 100, 112), roundedRect(180, cy + 85, 96, 80, 40));
  r.fill({ x0: 70, y0: cy - 130, x1: 290, y1: cy + 170 }, hairBack, (x, y) => mix(HAIR_LIGHT, HAIR, Math.min(1, Math.abs(x - 180) / 90 + (y - cy) / 300)));
}

function drawBody(r: Raster, dy: number): void {
  const shoulders = roundedRect(180, 600 + dy, 150, 160, 95);
  r.fill({ x0: 20, y0: 430 + dy, x1: 340, y1: 640 }, shoulders, (x) => mix(JACKET, JACKET_DARK, Math.abs(x - 180) / 160));
  // Neck, with a shadow under the chin.
  const neck = roundedRect(180, 380 + dy, 30, 65, 14);
  r.fill(boxAround(180, 380 + dy, 30, 65), neck, (_x, y) => mix(SKIN_SHADE, SKIN, (y - (345 + dy)) / 45));
  // Open shirt collar and jacket lapels.
  r.fill({ x0: 120, y0: 430 + dy, x1: 240, y1: 540 + dy }, triangle(136, 436 + dy, 224, 436 + dy, 180, 530 + dy), SHIRT);
  r.fill({ x0: 150, y0: 420 + dy, x1: 210, y1: 470 + dy }, triangle(153, 430 + dy, 207, 430 + dy, 180, 462 + dy), SKIN);
  r.fill({ x0: 100, y0: 430 + dy, x1: 185, y1: 600 + dy }, triangle(118, 440 + dy, 150, 436 + dy, 180, 560 + dy), JACKET_DARK);
  r.fill({ x0: 175, y0: 430 + dy, x1: 260, y1: 600 + dy }, triangle(242, 440 + dy, 210, 436 + dy, 180, 560 + dy), JACKET_DARK);
  // A name badge: a small detail that reads as "assistant" in a screenshot.
  r.fill(boxAround(250, 515 + dy, 24, 10), roundedRect(250, 515 + dy, 22, 8, 3), hex('#f4c95d'));
}

function drawHead(r: Raster, dy: number): void {
  const cy = 250 + dy;
  for (const ex of [102, 258]) {
    r.fill(boxAround(ex, cy + 15, 14, 21), ellipse(ex, cy + 15, 13, 20), SKIN_SHADE);
  }
  const face = egg(180, cy, 80, 98, 0.62);
  r.fill(boxAround(180, cy, 82, 100), face, (x, y) => mix(SKIN, SKIN_SHADE, (Math.abs(x - 180) / 80) ** 3 + Math.max(0, (y - cy - 70) / 60)));
  // Fringe: a cap over the top of the head with a swept curve cut out of it.
  const cap = subtract(ellipse(180, cy - 28, 90, 84), ellipse(200, cy + 36, 92, 86));
  r.fill({ x0: 80, y0: cy - 120, x1: 280, y1: cy + 60 }, cap, (x, y) => mix(HAIR_LIGHT, HAIR, (y - cy + 110) / 120 + Math.abs(x - 170) / 300));
  // A highlight on the hair so it does not read as a flat blob.
  r.fill({ x0: 120, y0: cy - 110, x1: 240, y1: cy - 60 }, arc(175, cy - 30, 62, 66, 6, (x, y) => y < cy - 78 && x < 200), HAIR_LIGHT, 0.5);
}

function drawEyes(r: Raster, dy: number, closed: boolean): void {
  const cy = 262 + dy;
  for (const cx of [146, 214]) {
    const side = cx < 180 ? -1 : 1;
    // Eyebrows: gentle arches, slightly raised for a friendly look.
    r.fill(boxAround(cx, cy - 22, 22, 12), arc(cx, cy - 10, 18, 14, 4, (x, y) => y < cy - 16 && Math.abs(x - cx) < 17), HAIR);
    if (closed) {
      r.fill(boxAround(cx, cy + 2, 18, 10), arc(cx, cy - 2, 15, 7, 3, (_x, y) => y > cy - 1), LINE);
      r.fill(boxAround(cx + side * 15, cy, 5, 5), arc(cx, cy - 2, 17, 9, 2, (x, y) => y > cy - 3 && side * (x - cx) > 13), LINE);
      continue;
    }
    const white = ellipse(cx, cy, 15, 10.5);
    r.fill(boxAround(cx, cy, 16, 12), white, WHITE);
    r.fill(boxAround(cx, cy + 1, 10, 10), intersect(ellipse(cx, cy + 1, 8.5, 8.5), white), IRIS);
    r.fill(boxAround(cx, cy + 1, 5, 5), ellipse(cx, cy + 1, 4, 4), hex('#1c110c'));
    r.fill(boxAround(cx + 3, cy - 2, 3, 3), ellipse(cx + 3, cy - 2, 2.4, 2.4), WHITE);
    // Upper lid line with a little flick at the outer corner.
    r.fill(boxAround(cx, cy - 6, 19, 9), arc(cx, cy + 1, 16, 12, 3, (_x, y) => y < cy - 2), LINE);
    r.fill(boxAround(cx + side * 16, cy - 5, 5, 5), triangle(cx + side * 12, cy - 7, cx + side * 20, cy - 9, cx + side * 14, cy - 3), LINE);
  }
}

function drawMouth(r: Raster, dy: number, shape: 0 | 1 | 2): void {
  const cx = 180;
  const cy = 330 + dy;
  if (shape === 0) {
    r.fill(boxAround(cx, cy, 22, 10), arc(cx, cy - 6, 18, 9, 3.5, (_x, y) => y > cy - 3), LIP);
    return;
  }
  const [rx, ry] = shape === 1 ? [14, 7] : [17, 13];
  const opening = ellipse(cx, cy + ry * 0.3, rx, ry);
  const box = boxAround(cx, cy + ry * 0.3, rx + 2, ry + 2);
  r.fill(box, opening, MOUTH_IN);
  r.fill(box, intersect(opening, ellipse(cx, cy + ry * 1.1, rx * 0.75, ry * 0.55)), TONGUE);
  if (shape === 2) {
    r.fill(box, intersect(opening, (_x, y) => y - (cy - ry * 0.7 + 4)), WHITE);
  }
  r.fill(box, arc(cx, cy + ry * 0.3, rx, ry, 2.5, () => true), LIP);
}

function drawFace(r: Raster, dy: number): void {
  // Nose: just a soft shadow under the tip, as in most cartoon styles.
  r.fill(boxAround(180, 298 + dy, 9, 6), arc(180, 293 + dy, 7, 5, 2.5, (_x, y) => y > 294 + dy), SKIN_SHADE);
  for (const cx of [136, 224]) {
    r.fill(boxAround(cx, 306 + dy, 18, 11), ellipse(cx, 306 + dy, 17, 10), BLUSH, 0.28);
  }
}

let background: Raster | undefined;
const bases = new Map<number, Raster>();

/** Everything but the eyes and the mouth, which is most of the pixels: drawn once per lift. */
function baseFor(lift: number): Raster {
  let base = bases.get(lift);
  if (!base) {
    if (!background) {
      background = new Raster(AVATAR_WIDTH, AVATAR_HEIGHT);
      drawBackground(background);
    }
    base = background.clone();
    drawHairBack(base, -lift);
    drawBody(base, -lift);
    drawHead(base, -lift);
    drawFace(base, -lift);
    bases.set(lift, base);
  }
  return base;
}

export function drawAvatar(pose: AvatarPose): Raster {
  const r = baseFor(pose.lift).clone();
  drawEyes(r, -pose.lift, pose.eyesClosed);
  drawMouth(r, -pose.lift, pose.mouth);
  return r;
}

const cache = new Map<string, Buffer>();

/** The I420 frame for a pose, rendered on first use and shared by every room of the process. */
export function avatarFrame(pose: AvatarPose): Buffer {
  const key = `${pose.mouth}${pose.eyesClosed ? 'c' : 'o'}${pose.lift}`;
  let frame = cache.get(key);
  if (!frame) {
    frame = toI420(drawAvatar(pose));
    cache.set(key, frame);
  }
  return frame;
}

export const IDLE_POSE: AvatarPose = { mouth: 0, eyesClosed: false, lift: 0 };

/**
 * Renders every pose ahead of need, yielding to the event loop between frames so that a room
 * starting up does not stall the others' media for the second this takes on a cold process.
 */
export async function prerenderAvatarFrames(shouldStop: () => boolean): Promise<void> {
  for (const lift of [0, 1, 2] as const) {
    for (const eyesClosed of [false, true]) {
      for (const mouth of [0, 1, 2] as const) {
        if (shouldStop()) return;
        avatarFrame({ mouth, eyesClosed, lift });
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}
