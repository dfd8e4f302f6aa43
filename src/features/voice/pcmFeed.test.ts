import { describe, expect, it } from 'vitest';
import { createPcmFeed, type PcmSink } from './pcmFeed.ts';

function sink() {
  const got: number[] = [];
  const s: PcmSink = { write: (pcm) => got.push(pcm[0]!) };
  return { s, got };
}
const chunk = (n: number) => Int16Array.of(n);

describe('PCM feed', () => {
  it('holds audio until a recognizer is attached, then passes everything on in order', () => {
    const feed = createPcmFeed();
    feed.write(chunk(1));
    feed.write(chunk(2));
    const { s, got } = sink();
    feed.attach(s);
    feed.write(chunk(3));
    expect(got).toEqual([1, 2, 3]);
  });

  it('says how much it handed over at the last attach: the backlog the recognizer starts with', () => {
    const feed = createPcmFeed();
    expect(feed.handedOver).toBe(0);
    [1, 2, 3].forEach((n) => feed.write(chunk(n)));
    const first = sink();
    feed.attach(first.s);
    expect(feed.handedOver).toBe(3);
    feed.write(chunk(4));
    feed.detach(first.s);
    feed.attach(sink().s);
    expect(feed.handedOver).toBe(0);
  });

  it("keeps a clock of the audio that came in, and says where on it each recognizer's audio starts", () => {
    const feed = createPcmFeed(2);
    const ms96 = new Int16Array(1536);
    expect(feed.sinkStartMs).toBeNull();
    [1, 2, 3].forEach(() => feed.write(ms96));
    expect(feed.receivedMs).toBe(288);
    // Two chunks held (the bound): the recognizer's first chunk is the second that came in.
    const first = sink();
    feed.attach(first.s);
    expect(feed.sinkStartMs).toBe(96);
    feed.write(ms96);
    feed.detach(first.s);
    expect(feed.sinkStartMs).toBeNull();
    feed.setPaused(true);
    feed.write(ms96);
    feed.setPaused(false);
    feed.write(ms96);
    // Paused audio is not on the clock, as it never reaches a recognizer.
    expect(feed.receivedMs).toBe(480);
    feed.attach(sink().s);
    expect(feed.sinkStartMs).toBe(384);
  });

  it('holds at most the bound, dropping the oldest', () => {
    const feed = createPcmFeed(2);
    [1, 2, 3].forEach((n) => feed.write(chunk(n)));
    const { s, got } = sink();
    feed.attach(s);
    expect(got).toEqual([2, 3]);
  });

  it('drops audio while paused (muted)', () => {
    const feed = createPcmFeed();
    const { s, got } = sink();
    feed.attach(s);
    feed.setPaused(true);
    feed.write(chunk(1));
    feed.setPaused(false);
    feed.write(chunk(2));
    expect(got).toEqual([2]);
  });

  it('a predecessor detaching does not cut off its successor', () => {
    const feed = createPcmFeed();
    const old = sink();
    const next = sink();
    feed.attach(old.s);
    feed.attach(next.s);
    feed.detach(old.s);
    feed.write(chunk(5));
    expect(next.got).toEqual([5]);
    expect(old.got).toEqual([]);
  });

  it('writes nothing after close', () => {
    const feed = createPcmFeed();
    const { s, got } = sink();
    feed.attach(s);
    feed.close();
    feed.write(chunk(1));
    feed.attach(s);
    expect(got).toEqual([]);
  });

  it('replays to a successor the audio its predecessor was written from a point on, then what was held, with the clock placed at the replay', () => {
    const feed = createPcmFeed();
    // 96 ms chunks, each tagged by its first sample.
    const tagged = (n: number) => {
      const pcm = new Int16Array(1536);
      pcm[0] = n;
      return pcm;
    };
    const first = sink();
    feed.attach(first.s);
    [1, 2, 3, 4].forEach((n) => feed.write(tagged(n)));
    feed.detach(first.s);
    feed.write(tagged(5));
    const next = sink();
    // From 192 ms on: chunks 3 and 4 (written to the first sink), then 5 (held).
    feed.attach(next.s, 192);
    feed.write(tagged(6));
    expect(next.got).toEqual([3, 4, 5, 6]);
    expect(feed.sinkStartMs).toBe(192);
    expect(feed.handedOver).toBe(3);
  });

  it('replays no more than REPLAY_KEEP_MS, and nothing from before a pause', () => {
    const feed = createPcmFeed();
    const second = new Int16Array(16_000);
    const first = sink();
    feed.attach(first.s);
    for (let n = 1; n <= 8; n += 1) feed.write(second.map((_, i) => (i === 0 ? n : 0)));
    feed.detach(first.s);
    const next = sink();
    feed.attach(next.s, 0);
    expect(next.got).toEqual([4, 5, 6, 7, 8]);
    expect(feed.sinkStartMs).toBe(3_000);
    feed.setPaused(true);
    feed.setPaused(false);
    feed.detach(next.s);
    const third = sink();
    feed.attach(third.s, 0);
    expect(third.got).toEqual([]);
    expect(feed.sinkStartMs).toBe(8_000);
  });

  it('replays the chunk a replay point falls in whole, and nothing once held audio overflowed (it would be placed wrong on the clock)', () => {
    const tagged = (n: number) => {
      const pcm = new Int16Array(1536);
      pcm[0] = n;
      return pcm;
    };
    const feed = createPcmFeed(2);
    const first = sink();
    feed.attach(first.s);
    [1, 2, 3].forEach((n) => feed.write(tagged(n)));
    feed.detach(first.s);
    const next = sink();
    // 200 ms falls in chunk 3 (192 to 288 ms).
    feed.attach(next.s, 200);
    expect(next.got).toEqual([3]);
    expect(feed.sinkStartMs).toBe(192);
    feed.detach(next.s);
    // Four chunks held with room for two: the oldest two are dropped.
    [4, 5, 6, 7].forEach((n) => feed.write(tagged(n)));
    const third = sink();
    feed.attach(third.s, 0);
    expect(third.got).toEqual([6, 7]);
    expect(feed.sinkStartMs).toBe(480);
  });
});
