/**
 * The demo's static media, generated at start with ffmpeg from lavfi sources
 * (nothing is downloaded): backgrounds, product images, a product video, a
 * promo web page and the avatar's photo. Each file is made only when missing
 * and written under a temporary name first, so a crash or a second stand-in
 * generating at the same time never leaves a half-written file behind.
 *
 * Served under /assets-standin/ (see http/static.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from './log.ts';
import { ASSET_PATHS } from './replies/knowledge.data.ts';

export const ASSETS_URL_PREFIX = '/assets-standin/';
/** Bump when a recipe changes so old caches are not reused. */
export const ASSETS_VERSION = 'v1';
export const DEFAULT_ASSETS_DIR = join('.cache', 'standin-assets', ASSETS_VERSION);

export const ACCOUNT_ASSETS = {
  avatar: '/assets-standin/avatar.webp',
  background: '/assets-standin/backgrounds/showroom.jpg',
  backgroundVideo: '/assets-standin/backgrounds/showroom-loop.webm',
} as const;

export type PhotoMaker = (file: string) => Promise<void>;

const FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
  '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf',
];

/** drawtext, or nothing when no font is installed (the picture still works without words). */
function text(value: string, size: number, x: string, y: string, color = 'white'): string[] {
  const font = FONT_CANDIDATES.find((f) => existsSync(f));
  if (!font) return [];
  return [`drawtext=fontfile=${font}:expansion=none:text='${value}':fontsize=${size}:fontcolor=${color}:x=${x}:y=${y}`];
}

const box = (x: number | string, y: number | string, w: number | string, h: number | string, color: string): string =>
  `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=${color}:t=fill`;

function still(source: string, filters: string[]): string[] {
  return ['-f', 'lavfi', '-i', source, '-vf', filters.join(','), '-frames:v', '1'];
}

/** ffmpeg argument lists (input and filters; the output file is appended), by URL path. */
const RECIPES: Record<string, string[]> = {
  [ACCOUNT_ASSETS.background]: [
    ...still('gradients=s=1080x1920:c0=0xf7e1d3:c1=0xd9e4f5:c2=0xeef3e6:n=3:x0=0:y0=0:x1=1080:y1=1920:seed=7', [
      box(0, 1380, 1080, 540, 'white@0.35'),
      box(90, 260, 900, 8, 'white@0.5'),
    ]),
    '-q:v', '4',
  ],
  [ACCOUNT_ASSETS.backgroundVideo]: [
    // One gradient frame repeated, with a crop window circling over it: cheap to
    // make (rendering gradients per frame takes seconds) and it loops seamlessly.
    '-f', 'lavfi', '-i', 'gradients=s=640x1136:c0=0xf7e1d3:c1=0xc9d8f2:c2=0xe6f0dc:n=3:seed=7:d=1:r=1,loop=loop=90:size=1,setpts=N/15/TB',
    '-vf', "crop=540:960:x='50+50*sin(2*PI*t/6)':y='88+88*cos(2*PI*t/6)'",
    '-r', '15', '-frames:v', '90',
    '-an', '-pix_fmt', 'yuv420p', '-c:v', 'libvpx', '-b:v', '500k', '-deadline', 'realtime', '-cpu-used', '8',
  ],
  [ASSET_PATHS.newProducts]: still('gradients=s=800x800:c0=0xfdf1e7:c1=0xf3d9c6:x0=0:y0=0:x1=800:y1=800:seed=3', [
    box(80, 300, 180, 300, '0x2f6f8f'),
    box(310, 240, 180, 360, '0xe0795f'),
    box(540, 330, 180, 270, '0x6a9c5a'),
    box(60, 600, 680, 16, '0x8a6d5b'),
    ...text('NEW ARRIVALS', 64, '(w-text_w)/2', '90', '0x3a2e28'),
    ...text('Spring Collection', 36, '(w-text_w)/2', '680', '0x3a2e28'),
  ]),
  [ASSET_PATHS.storeFront]: still('gradients=s=800x800:c0=0xbfe0f7:c1=0xf4f8fb:x0=0:y0=0:x1=0:y1=800:seed=5', [
    box(100, 220, 600, 500, '0xede3d6'),
    box(100, 220, 600, 90, '0x2f4f6f'),
    box(140, 370, 180, 160, '0x9cc7e0'),
    box(480, 370, 180, 160, '0x9cc7e0'),
    box(340, 450, 120, 270, '0x6b4a35'),
    box(0, 720, 800, 80, '0x9a9a9a'),
    ...text('HARBOUR OUTFITTERS', 44, '(w-text_w)/2', '245'),
    ...text('1 Harbour Road', 30, '(w-text_w)/2', '120', '0x2f4f6f'),
  ]),
  [ASSET_PATHS.discountPoster]: still('gradients=s=800x800:c0=0xe2483d:c1=0xf2a03d:x0=0:y0=0:x1=800:y1=800:seed=9', [
    box(60, 60, 680, 680, 'white@0.15'),
    ...text('20% OFF', 150, '(w-text_w)/2', '230'),
    ...text('for new members', 44, '(w-text_w)/2', '430'),
    ...text('on the first order until Sunday', 32, '(w-text_w)/2', '500'),
  ]),
  [ASSET_PATHS.productVideo]: [
    '-f', 'lavfi', '-i', 'gradients=s=640x360:c0=0xfdf1e7:c1=0xf0c8b0:seed=3:d=1:r=1,loop=loop=75:size=1,setpts=N/15/TB',
    '-f', 'lavfi', '-i', 'color=c=0x2f6f8f:s=120x160:r=15',
    '-f', 'lavfi', '-i', 'color=c=0xe0795f:s=100x180:r=15',
    '-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=48000:d=5',
    '-filter_complex', [
      "[0:v][1:v]overlay=x='40+mod(t*90,420)':y=150:shortest=1[a]",
      "[a][2:v]overlay=x='480-mod(t*70,380)':y=130:shortest=1" +
        text('Spring Collection', 40, '(w-text_w)/2', '40', '0x3a2e28').map((f) => `,${f}`).join('') +
        '[v]',
      '[3:a]volume=0.08,tremolo=f=2:d=0.6[aud]',
    ].join(';'),
    '-map', '[v]', '-map', '[aud]',
    '-pix_fmt', 'yuv420p', '-c:v', 'libvpx', '-b:v', '600k', '-deadline', 'realtime', '-cpu-used', '8',
    '-c:a', 'libopus', '-b:a', '48k', '-t', '5',
  ],
  placeholderAvatar: still('gradients=s=360x640:c0=0xdfe7f2:c1=0xf7e1d3:x0=0:y0=0:x1=0:y1=640:seed=1', [
    box(130, 140, 100, 120, '0xf0c8a8'),
    box(80, 300, 200, 340, '0x2f4f6f'),
    ...text('Ava', 40, '(w-text_w)/2', '560'),
  ]),
};

function runFfmpeg(args: string[], signal?: AbortSignal, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    // `signal` kills the child when the stand-in closes mid-generation.
    const child = spawn('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(signal ? { signal, killSignal: 'SIGKILL' as const } : {}),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_000) stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      if (err.name === 'AbortError') reject(new Error('asset generation aborted'));
      else reject(new Error(`could not run ffmpeg (${err.message}); install it (npm start does)`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(0, 1_000)}`));
    });
  });
}

/** Writes `file` through `make(tmp)` and an atomic rename; a no-op when it exists. */
async function ensure(file: string, make: (tmp: string) => Promise<void>): Promise<boolean> {
  if (existsSync(file)) return false;
  await mkdir(dirname(file), { recursive: true });
  const dot = file.lastIndexOf('.');
  const tmp = `${file.slice(0, dot)}.tmp-${process.pid}-${randomBytes(3).toString('hex')}${file.slice(dot)}`;
  try {
    await make(tmp);
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
  return true;
}

/** Every URL path this module serves, for tests and the knowledge base's media. */
export const GENERATED_PATHS: readonly string[] = [
  ACCOUNT_ASSETS.avatar,
  ACCOUNT_ASSETS.background,
  ACCOUNT_ASSETS.backgroundVideo,
  ASSET_PATHS.newProducts,
  ASSET_PATHS.storeFront,
  ASSET_PATHS.discountPoster,
  ASSET_PATHS.productVideo,
  ASSET_PATHS.promoPage,
];

export function assetFile(dir: string, urlPath: string): string {
  return join(dir, ...urlPath.slice(ASSETS_URL_PREFIX.length).split('/'));
}

export interface GenerateOptions {
  log: Logger;
  /** The avatar's photo from the media pipeline; null draws a placeholder. */
  makePhoto: PhotoMaker | null;
  signal?: AbortSignal;
}

/** Makes every missing asset in `dir`, one ffmpeg at a time (the machine is small). */
export async function generateDemoAssets(dir: string, opts: GenerateOptions): Promise<void> {
  const started = performance.now();
  const made: string[] = [];
  for (const [urlPath, args] of Object.entries(RECIPES)) {
    if (!urlPath.startsWith(ASSETS_URL_PREFIX)) continue;
    if (await ensure(assetFile(dir, urlPath), (tmp) => runFfmpeg([...args, tmp], opts.signal))) made.push(urlPath);
  }
  const page = assetFile(dir, ASSET_PATHS.promoPage);
  if (await ensure(page, (tmp) => writeFile(tmp, promoPage()))) made.push(ASSET_PATHS.promoPage);

  // A placeholder photo (drawn while the media module could not) is replaced once it can.
  const avatar = assetFile(dir, ACCOUNT_ASSETS.avatar);
  const marker = `${avatar}.placeholder`;
  const makePhoto = opts.makePhoto;
  if (makePhoto && existsSync(marker)) await rm(avatar, { force: true });
  const madeAvatar = await ensure(avatar, async (tmp) => {
    if (makePhoto) {
      await makePhoto(tmp);
      await rm(marker, { force: true });
      return;
    }
    opts.log.warn('the media module has no generateAvatarPhoto: drawing a placeholder avatar photo');
    await runFfmpeg([...RECIPES.placeholderAvatar!, tmp], opts.signal);
    await writeFile(marker, 'drawn without server/media; replaced when it can draw the avatar\n');
  });
  if (madeAvatar) made.push(ACCOUNT_ASSETS.avatar);
  if (made.length > 0) opts.log.info('demo assets generated', { dir, made, ms: Math.round(performance.now() - started) });
}

/** The promo page that web_url replies open; served with its own strict CSP (no script at all). */
function promoPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spring offer - Harbour Outfitters</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: #fdf1e7; color: #3a2e28; }
  main { max-width: 560px; margin: 0 auto; padding: 24px; }
  h1 { font-size: 1.8rem; margin: 0 0 8px; }
  img { width: 100%; border-radius: 12px; display: block; margin: 16px 0; }
  .badge { display: inline-block; background: #e2483d; color: #fff; border-radius: 999px; padding: 4px 12px; font-weight: 600; }
  li { margin: 6px 0; }
</style>
</head>
<body>
<main>
  <span class="badge">Members only</span>
  <h1>20% off your first order</h1>
  <p>Join as a new member this week and get twenty percent off your first order, in every store and online.</p>
  <img src="../images/discount-poster.png" alt="20% off for new members">
  <ul>
    <li>Valid until Sunday.</li>
    <li>One order per member.</li>
    <li>Ask any of our assistants to sign you up.</li>
  </ul>
  <p>Harbour Outfitters, 1 Harbour Road.</p>
</main>
</body>
</html>
`;
}
