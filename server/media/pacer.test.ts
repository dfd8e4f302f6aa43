import { afterEach, describe, expect, it } from 'vitest';
import { AudioPacer } from './pacer.ts';

const CHUNK_BYTES = 960 * 2;
const isSilent = (chunk: Buffer): boolean => chunk.every((b) => b === 0);
const tone = (ms: number, amplitude = 8000): Int16Array => Int16Array.from({ length: ms * 48 }, (_, i) => Math.round(amplitude * Math.sin(i / 5)));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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
  let pacer: AudioPacer | undefined;
  afterEach(() => pacer?.stop());

  it('delivers 50 chunks per second of wall clock', async () => {
    const times: number[] = [];
    pacer = new AudioPacer((chunk) => {
      expect(chunk.length).toBe(CHUNK_BYTES);
      times.push(performance.now());
    });
    const start = performance.now();
    pacer.start();
    await sleep(1000);
    const elapsed = performance.now() - start;
    const expected = Math.floor(elapsed / 20) + 1;
    expect(Math.abs(times.length - expected)).toBeLessThanOrEqual(3);
  });

  it('catches up after the event loop was blocked, so the stream keeps real time', async () => {
    let count = 0;
    pacer = new AudioPacer(() => count++);
    const start = performance.now();
    pacer.start();
    await sleep(200);
    const busyUntil = performance.now() + 200;
    while (performance.now() < busyUntil) {
      /* block the event loop like a heavy render would */
    }
    await sleep(400);
    const expected = Math.floor((performance.now() - start) / 20) + 1;
    expect(Math.abs(count - expected)).toBeLessThanOrEqual(3);
  });

  it('plays speech then silence in real time', async () => {
    const chunks: Buffer[] = [];
    pacer = new AudioPacer((c) => chunks.push(c));
    pacer.start();
    const playback = pacer.play(tone(200));
    await playback.started;
    const begun = performance.now();
    await expect(playback.finished).resolves.toBe('done');
    // 10 chunks of speech take about 180 ms more after the first one.
    // The pacer catches up after a stalled event loop, so a loaded machine may finish sooner.
    expect(performance.now() - begun).toBeGreaterThan(100);
    await sleep(100);
    const spoken = chunks.map((c) => !isSilent(c));
    expect(spoken.filter(Boolean).length).toBe(10);
    expect(spoken.lastIndexOf(true) - spoken.indexOf(true)).toBe(9);
    expect(spoken.at(-1)).toBe(false);
  });
});
