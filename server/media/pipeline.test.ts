import { afterAll, describe, expect, it } from 'vitest';
import { listEvents } from '../events.ts';
import { trackedChildPids } from './children.ts';
import { WhepOfferError, createMediaPipeline, type MediaPipeline } from './index.ts';

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
    await new Promise((r) => setTimeout(r, 300));
    pipeline.stopSpeaking();
    await expect(speech.finished).resolves.toBe('interrupted');
    const stats = pipeline.stats();
    expect(stats.frames).toBeGreaterThan(framesAtReady);
    expect([stats.width, stats.height]).toEqual([360, 640]);
    expect(stats.sendBytes).toBe(0); // nobody is watching

    await pipeline.close();
    expect(pipeline.isActive()).toBe(false);
    expect(trackedChildPids().filter((pid) => encoders.includes(pid))).toEqual([]);
    expect(encoders.some(isAlive)).toBe(false);
    await pipeline.close(); // idempotent
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
    await expect(p.answerWhep('v=0')).rejects.toBeInstanceOf(WhepOfferError);
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
