import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listEvents } from '../events.ts';
import { trackedChildPids } from './children.ts';
import { VIDEO_PROFILES, videoCodec, videoEncoderArgs, videoProfile } from './encoders.ts';
import { WhepGoneError, WhepOfferError, createMediaPipeline, type MediaPipeline } from './index.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('createMediaPipeline', () => {
  let pipeline: MediaPipeline | undefined;
  afterAll(async () => {
    await pipeline?.close();
  });

  it('becomes ready with both encoders sending, speaks, and closes without leaking ffmpeg', async () => {
    const before = new Set(trackedChildPids());
    pipeline = createMediaPipeline({ roomId: 'room-pipeline' });
    expect(pipeline.isActive()).toBe(false);
    await pipeline.ready;
    expect(pipeline.isActive()).toBe(true);
    const encoders = trackedChildPids().filter((pid) => !before.has(pid));
    expect(encoders).toHaveLength(2);
    expect(encoders.every(isAlive)).toBe(true);

    const framesAtReady = pipeline.stats().frames;
    const speech = await pipeline.speak('Welcome! How can I help you today?', 'en');
    expect(speech.durationMs).toBeGreaterThan(1000);
    // Cut while it plays: speak() resolves once its first chunk has gone to the encoder, with
    // more than a second left.
    pipeline.stopSpeaking();
    await expect(speech.finished).resolves.toBe('interrupted');
    await expect.poll(() => pipeline!.stats().frames).toBeGreaterThan(framesAtReady);
    const stats = pipeline.stats();
    expect([stats.width, stats.height, stats.codec]).toEqual([540, 960, 'h264']);
    expect(stats.sendBytes).toBe(0); // nobody is watching

    await pipeline.close();
    expect(pipeline.isActive()).toBe(false);
    expect(trackedChildPids().filter((pid) => encoders.includes(pid))).toEqual([]);
    expect(encoders.some(isAlive)).toBe(false);
    await pipeline.close(); // idempotent
  });

  it('is active as soon as its encoders run, before any media has come out of them (SRS publish.active)', async () => {
    // An "ffmpeg" that reads its input and never sends a packet: ready never comes.
    const dir = mkdtempSync(join(tmpdir(), 'silent-ffmpeg-'));
    const fake = join(dir, 'ffmpeg');
    writeFileSync(fake, '#!/bin/sh\nexec cat >/dev/null\n');
    chmodSync(fake, 0o755);
    const saved = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = fake;
    const p = createMediaPipeline({ roomId: 'room-publishing' });
    let ready = false;
    void p.ready.then(() => (ready = true), () => undefined);
    try {
      const deadline = Date.now() + 5000;
      while (!p.isActive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(p.isActive()).toBe(true);
      expect(ready).toBe(false);
      // Nothing has come out of the encoders: no media was sent.
      expect(p.stats().sendBytes).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = saved;
      await p.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(p.isActive()).toBe(false);
  });

  it('rejects garbage offers with WhepOfferError and records them', async () => {
    const p = createMediaPipeline({ roomId: 'room-garbage' });
    try {
      await expect(p.answerWhep('not sdp at all')).rejects.toBeInstanceOf(WhepOfferError);
      await expect(p.answerWhep('')).rejects.toThrow(/empty/);
      expect(listEvents().some((e) => e.channel === 'whep' && e.dir === 'in' && (e.body as { roomId?: string }).roomId === 'room-garbage')).toBe(true);
      expect(p.peerCount()).toBe(0);
    } finally {
      await p.close();
    }
    await expect(p.ready).rejects.toThrow(/closed/);
    // A closed pipeline answers no offer, whatever it is: its stream is gone (404).
    await expect(p.answerWhep('v=0')).rejects.toBeInstanceOf(WhepGoneError);
  });

  it('rejects ready with the reason when an encoder cannot run, and leaks nothing', async () => {
    const saved = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = '/nonexistent/ffmpeg';
    const before = trackedChildPids();
    const p = createMediaPipeline({ roomId: 'room-no-ffmpeg' });
    try {
      await expect(p.ready).rejects.toThrow(/encoder exited.*ENOENT/);
      expect(p.isActive()).toBe(false);
      expect(trackedChildPids()).toEqual(before);
    } finally {
      if (saved === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = saved;
      await p.close();
    }
  });

  it('cancels speech that is still being synthesized when stopSpeaking comes first', async () => {
    const p = createMediaPipeline({ roomId: 'room-cancel' });
    try {
      const pending = p.speak('This sentence will never be heard.', 'en');
      p.stopSpeaking();
      const handle = await pending;
      await expect(handle.finished).resolves.toBe('interrupted');
    } finally {
      await p.close();
    }
  });
});

describe('the video encoder', () => {
  const args = (profile = VIDEO_PROFILES.large, codec = videoCodec({})) =>
    videoEncoderArgs({ port: 5000, ssrc: 1, srcWidth: 360, srcHeight: 640, profile, codec }).join(' ');

  it('sends H.264 constrained baseline without B-frames and a keyframe every second (the network switch figures rest on it), at 540x960 25 fps ~1.2 Mbit/s by default', () => {
    expect(videoProfile({})).toEqual({ name: 'large', width: 540, height: 960, fps: 25, kbps: 1200 });
    const line = args();
    for (const arg of ['-c:v libx264', '-profile:v baseline', '-bf 0', '-tune zerolatency', '-vf scale=540:960', '-b:v 1200k']) expect(line).toContain(arg);
    const gop = Number(/-g (\d+)/.exec(line)?.[1]);
    expect(gop).toBeGreaterThan(0);
    expect(gop / 25).toBeLessThanOrEqual(1);
  });

  it('keeps the small profile (360x640 at 15 fps, unscaled) and the Firefox lane\'s VP8 behind environment variables', () => {
    expect(videoProfile({ STANDIN_VIDEO_PROFILE: 'small' })).toMatchObject({ width: 360, height: 640, fps: 15 });
    expect(args(VIDEO_PROFILES.small)).not.toContain('scale=');
    expect(videoCodec({ STANDIN_VIDEO_CODEC: 'vp8' })).toBe('vp8');
    expect(args(VIDEO_PROFILES.small, 'vp8')).toContain('-c:v libvpx');
  });
});
