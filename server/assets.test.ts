import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ASSETS, assetFile, generateDemoAssets, GENERATED_PATHS } from './assets.ts';
import { createLogger } from './log.ts';
import { ENTRIES } from './replies/knowledge.data.ts';

const log = createLogger('test');
let dir: string;

/** width, height, codecs and duration as ffprobe sees them. */
function probe(file: string): { width?: number; height?: number; codecs: string[]; duration: number } {
  const out = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height:format=duration', '-of', 'json', file]).toString(),
  ) as { streams: { codec_name: string; width?: number; height?: number }[]; format: { duration?: string } };
  const video = out.streams.find((s) => s.width);
  return { width: video?.width, height: video?.height, codecs: out.streams.map((s) => s.codec_name), duration: Number(out.format.duration ?? 0) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'standin-assets-'));
  await generateDemoAssets(dir, { log, makePhoto: null });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generateDemoAssets', () => {
  it('makes every asset, non-empty', () => {
    for (const path of GENERATED_PATHS) {
      const file = assetFile(dir, path);
      expect(existsSync(file), path).toBe(true);
      expect(statSync(file).size, path).toBeGreaterThan(500);
    }
  });

  it('makes a portrait 1080x1920 background image and a looping VP8 background video', () => {
    expect(probe(assetFile(dir, ACCOUNT_ASSETS.background))).toMatchObject({ width: 1080, height: 1920, codecs: ['mjpeg'] });
    const loop = probe(assetFile(dir, ACCOUNT_ASSETS.backgroundVideo));
    expect(loop).toMatchObject({ width: 540, height: 960, codecs: ['vp8'] });
    expect(loop.duration).toBeGreaterThan(4);
  });

  it('makes a 5 s product video with VP8 video and Opus audio', () => {
    const video = probe(assetFile(dir, '/assets-standin/video/product.webm'));
    expect(video.codecs.sort()).toEqual(['opus', 'vp8']);
    expect(video.duration).toBeGreaterThan(4.5);
    expect(video.duration).toBeLessThan(5.6);
  });

  it('makes PNG product images', () => {
    for (const name of ['new-products', 'store-front', 'discount-poster']) {
      expect(probe(assetFile(dir, `/assets-standin/images/${name}.png`))).toMatchObject({ width: 800, height: 800, codecs: ['png'] });
    }
  });

  it('makes a script-free promo page that links the poster', () => {
    const html = readFileSync(assetFile(dir, '/assets-standin/pages/promo.html'), 'utf8');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('../images/discount-poster.png');
  });

  it('has a file for every media URL the knowledge base hands out', () => {
    const paths = ENTRIES.flatMap((e) => [...e.answer.en, ...e.answer.zh]).flatMap((p) =>
      'image' in p ? [p.image] : 'video' in p ? [p.video] : 'web' in p ? [p.web] : [],
    );
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) expect(GENERATED_PATHS, path).toContain(path);
  });

  it('regenerates nothing that exists', async () => {
    const file = assetFile(dir, ACCOUNT_ASSETS.background);
    const before = statSync(file).mtimeMs;
    await generateDemoAssets(dir, { log, makePhoto: null });
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('replaces a placeholder avatar once the media module can draw the photo', async () => {
    const avatar = assetFile(dir, ACCOUNT_ASSETS.avatar);
    expect(existsSync(`${avatar}.placeholder`)).toBe(true);
    await generateDemoAssets(dir, { log, makePhoto: async (file) => writeFileSync(file, 'real photo') });
    expect(readFileSync(avatar, 'utf8')).toBe('real photo');
    expect(existsSync(`${avatar}.placeholder`)).toBe(false);
  });

  it('leaves no temporary file behind when a step fails', async () => {
    const other = mkdtempSync(join(tmpdir(), 'standin-assets-fail-'));
    // Everything but the avatar exists already, so only the failing step runs.
    execFileSync('cp', ['-r', `${dir}/.`, other]);
    rmSync(assetFile(other, ACCOUNT_ASSETS.avatar));
    try {
      const failing = generateDemoAssets(other, { log, makePhoto: async () => Promise.reject(new Error('no photo')) });
      await expect(failing).rejects.toThrow('no photo');
      const leftovers = execFileSync('find', [other, '-name', '*.tmp-*']).toString().trim();
      expect(leftovers).toBe('');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
