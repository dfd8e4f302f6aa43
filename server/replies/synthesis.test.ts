/**
 * The avatar's speech synthesis under a burst (issue 21): espeak-ng runs at
 * most MAX_RUNNING at a time, and a synthesis whose reply is interrupted stops
 * at once, running or waiting, and gives no sound.
 */
import { describe, expect, it } from 'vitest';
import { MAX_RUNNING, MAX_WAITING, synthesisLoad, synthesize, withSynthesisSignal } from '../media/tts.ts';

const LONG = 'The store on Harbour Road is open every day from nine in the morning until nine at night. '.repeat(10);

describe('speech synthesis limits', () => {
  it('runs at most one espeak-ng per core, and an interrupted synthesis stops at once with no sound', async () => {
    const aborts = Array.from({ length: MAX_RUNNING + 4 }, () => new AbortController());
    const runs = aborts.map((a) => withSynthesisSignal(a.signal, () => synthesize(LONG, 'en')));
    await new Promise((r) => setImmediate(r));
    expect(synthesisLoad()).toEqual({ running: MAX_RUNNING, waiting: 4 });
    const interrupted = performance.now();
    for (const a of aborts) a.abort();
    const results = await Promise.all(runs);
    expect(results.every((pcm) => pcm.length === 0)).toBe(true);
    // The killed processes are reaped, and their slots given back, within the 2 s of issue 21.
    while (synthesisLoad().running > 0 && performance.now() - interrupted < 2_000) await new Promise((r) => setTimeout(r, 10));
    expect(synthesisLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it(`fails at once beyond ${MAX_WAITING} waiting, and serves the queue once a slot is free`, async () => {
    const abort = new AbortController();
    const held = Array.from({ length: MAX_RUNNING + MAX_WAITING }, () => withSynthesisSignal(abort.signal, () => synthesize(LONG, 'en')));
    await expect(synthesize('One more.', 'en')).rejects.toThrow(/busy/);
    abort.abort();
    await Promise.all(held);
    const pcm = await synthesize('Hello.', 'en');
    expect(pcm.length).toBeGreaterThan(0);
  });
});
