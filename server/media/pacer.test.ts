import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AudioPacer } from './pacer.ts';

const CHUNK_BYTES = 960 * 2;
const isSilent = (chunk: Buffer): boolean => chunk.every((b) => b === 0);
const tone = (ms: number, amplitude = 8000): Int16Array => Int16Array.from({ length: ms * 48 }, (_, i) => Math.round(amplitude * Math.sin(i / 5)));

describe('AudioPacer chunks', () => {
  it('gives the speech in 20 ms chunks, then silence, and reports done', async () => {
    const pacer = new AudioPacer(() => undefined);
    const playback = pacer.play(tone(50));
    expect(playback.durationMs).toBe(50);
    const chunks = Array.from({ length: 5 }, () => pacer.nextChunk());
    expect(chunks.every((c) => c.length === CHUNK_BYTES)).toBe(true);
    expect(chunks.slice(0, 3).map(isSilent)).toEqual([false, false, false]);
    // The third chunk holds the last 10 ms of speech followed by padding.
    expect(isSilent(chunks[2]!.subarray(960))).toBe(true);
    expect(chunks.slice(3).every(isSilent)).toBe(true);
    await expect(playback.started).resolves.toBeUndefined();
    await expect(playback.finished).resolves.toBe('done');
    expect(pacer.speaking).toBe(false);
    expect(pacer.level).toBe(0);
  });

  it('cuts speech at once on stopSpeaking', async () => {
    const pacer = new AudioPacer(() => undefined);
    const playback = pacer.play(tone(1000));
    expect(isSilent(pacer.nextChunk())).toBe(false);
    expect(pacer.level).toBeGreaterThan(0.1);
    pacer.stopSpeaking();
    expect(isSilent(pacer.nextChunk())).toBe(true);
    await expect(playback.finished).resolves.toBe('interrupted');
  });

  it('lets new speech replace the current one', async () => {
    const pacer = new AudioPacer(() => undefined);
    const first = pacer.play(tone(1000, 1000));
    pacer.nextChunk();
    const second = pacer.play(tone(40, 20000));
    await expect(first.finished).resolves.toBe('interrupted');
    pacer.nextChunk();
    expect(pacer.level).toBeGreaterThan(0.3);
    pacer.nextChunk();
    await expect(second.finished).resolves.toBe('done');
  });

  it('finishes empty speech immediately', async () => {
    const pacer = new AudioPacer(() => undefined);
    const playback = pacer.play(new Int16Array(0));
    await expect(playback.finished).resolves.toBe('done');
    expect(isSilent(pacer.nextChunk())).toBe(true);
  });
});

describe('AudioPacer timing', () => {
  // The pacer's clock is faked (setTimeout and performance.now): what is tested is when it hands
  // out chunks by its clock, not how promptly this machine's event loop runs it.
  let pacer: AudioPacer | undefined;
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => {
    pacer?.stop();
    vi.useRealTimers();
  });

  it('delivers 50 chunks per second of its clock', () => {
    let count = 0;
    pacer = new AudioPacer((chunk) => {
      expect(chunk.length).toBe(CHUNK_BYTES);
      count++;
    });
    pacer.start();
    expect(count).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(count).toBe(51);
  });

  it('catches up after the event loop was blocked, so the stream keeps real time', () => {
    let count = 0;
    pacer = new AudioPacer(() => count++);
    // A blocked event loop: the clock moves on while no timer runs.
    let blockedMs = 0;
    const clock = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => clock() + blockedMs);
    pacer.start();
    vi.advanceTimersByTime(200);
    expect(count).toBe(11);
    blockedMs = 200;
    expect(count).toBe(11);
    // The first tick after the block hands out the 10 chunks it missed with its own.
    vi.advanceTimersToNextTimer();
    expect(count).toBe(22);
    // 220 ms of timers and 200 ms blocked, then 400 ms more: 820 ms of the clock, chunks 0 to 41.
    vi.advanceTimersByTime(400);
    expect(count).toBe(42);
  });

  it('plays speech then silence in real time', async () => {
    const spokenAt: number[] = [];
    const chunks: Buffer[] = [];
    pacer = new AudioPacer((c) => {
      chunks.push(c);
      if (!isSilent(c)) spokenAt.push(performance.now());
    });
    pacer.start();
    const playback = pacer.play(tone(200));
    let end: string | undefined;
    void playback.finished.then((e) => (end = e));
    vi.advanceTimersByTime(20);
    await playback.started;
    // 10 chunks of speech, one every 20 ms of the clock: finished with the tenth, not before.
    vi.advanceTimersByTime(160);
    await Promise.resolve();
    expect(end).toBeUndefined();
    vi.advanceTimersByTime(20);
    await expect(playback.finished).resolves.toBe('done');
    expect(spokenAt.slice(1).map((t, i) => t - spokenAt[i]!)).toEqual(Array(9).fill(20));
    vi.advanceTimersByTime(100);
    const spoken = chunks.map((c) => !isSilent(c));
    expect(spoken.filter(Boolean).length).toBe(10);
    expect(spoken.lastIndexOf(true) - spoken.indexOf(true)).toBe(9);
    expect(spoken.at(-1)).toBe(false);
  });
});
