import { describe, expect, it } from 'vitest';
import { Endpointer, frameEnergyDb, type EndpointerEvent } from './endpointer.ts';
import { silence, tone } from './testing.ts';

const MS = 16; // samples per millisecond at 16 kHz

function feed(ep: Endpointer, ...parts: Buffer[]): EndpointerEvent[] {
  // Odd-sized chunks: frames must be reassembled across pushes.
  const all = Buffer.concat(parts);
  const events: EndpointerEvent[] = [];
  for (let at = 0; at < all.length; at += 777) events.push(...ep.push(all.subarray(at, at + 777)));
  return events;
}

describe('Endpointer', () => {
  it('measures frame energy in dBFS', () => {
    expect(frameEnergyDb(new Int16Array(160))).toBeLessThan(-100);
    expect(frameEnergyDb(new Int16Array(160).fill(32767))).toBeCloseTo(0, 1);
  });

  it('finds one utterance with its start, end and audio', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    const events = feed(ep, silence(1000), tone(800), silence(700));
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
    const [start, end] = events;
    expect(start?.type === 'start' && start.startSample).toBe(1000 * MS);
    if (end?.type !== 'end') throw new Error('no end');
    expect(end.reason).toBe('silence');
    expect(end.startSample).toBe(1000 * MS);
    expect(end.endSample).toBe(1800 * MS);
    // 300 ms pre-roll + 800 ms speech + 300 ms post-roll.
    expect(end.audio.length).toBe(1400 * MS);
  });

  it('keeps an utterance together across pauses shorter than the segmentation silence', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 1000 });
    const events = feed(ep, tone(400), silence(700), tone(400), silence(1100));
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
  });

  it('splits at the segmentation silence', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    const events = feed(ep, tone(400), silence(700), tone(400), silence(700));
    expect(events.map((e) => e.type)).toEqual(['start', 'end', 'start', 'end']);
  });

  it('ignores clicks shorter than the start window', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    expect(feed(ep, silence(200), tone(30), silence(500), tone(30), silence(500))).toEqual([]);
    expect(ep.inSpeech).toBe(false);
  });

  it('cuts an utterance at the length cap and starts the next one', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500, maxUtteranceMs: 2000 });
    const events = feed(ep, tone(3000), silence(600));
    expect(events.map((e) => (e.type === 'end' ? e.reason : e.type))).toEqual(['start', 'maxLength', 'start', 'silence']);
  });

  it('closes an utterance still open at the end of the stream', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    expect(feed(ep, silence(100), tone(600))).toHaveLength(1);
    expect(ep.inSpeech).toBe(true);
    expect(ep.speechSamples).toBeGreaterThan(500 * MS);
    expect(ep.currentAudio().length).toBeGreaterThan(600 * MS);
    const [end] = ep.flush();
    expect(end?.type === 'end' && end.reason).toBe('flush');
    expect(ep.flush()).toEqual([]);
  });

  it('adapts to a steady noise floor and still hears speech above it', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    const noise = () => tone(1000, 60); // about -55 dBFS: room noise
    expect(feed(ep, noise(), noise())).toEqual([]);
    const events = feed(ep, tone(500, 3000), noise());
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
  });

  it('counts every sample seen, partial frames included', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    ep.push(Buffer.alloc(1000));
    expect(ep.samplesSeen).toBe(500);
  });

  it('counts voiced samples up to the last loud frame, not the silence after it', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 1000 });
    feed(ep, silence(200), tone(600), silence(500));
    expect(ep.inSpeech).toBe(true);
    expect(ep.voicedSamples).toBe(600 * MS);
    expect(ep.speechSamples).toBe(1100 * MS);
  });

  it('recovers when the background gets louder than the margin for good', () => {
    const ep = new Endpointer({ segmentationSilenceMs: 500 });
    const hum = (ms: number) => tone(ms, 300); // about -40 dBFS: a fan, or the gain turned up
    // Before the fix every frame of hum counted as speech from here on: no end but the length cap.
    const events = feed(ep, silence(1000), hum(8000), Buffer.alloc(0));
    expect(events.map((e) => (e.type === 'end' ? e.reason : e.type))).toEqual(['start', 'silence']);
    const louder = Buffer.concat([hum(500), tone(800, 8000), hum(1000)]);
    const speech = feed(ep, louder);
    expect(speech.map((e) => (e.type === 'end' ? e.reason : e.type))).toEqual(['start', 'silence']);
    const [start] = speech;
    expect(start?.type === 'start' && start.startSample).toBe((1000 + 8000 + 500) * MS);
  });
});
