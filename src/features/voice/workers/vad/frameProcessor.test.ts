import { describe, expect, it } from 'vitest';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS, FrameProcessor, type FrameEvent, type FrameProcessorOptions } from './frameProcessor.ts';

const FRAME = 4;

/** Small frames whose samples all carry the frame's index, so audio shows which frames it holds. */
function feed(probs: number[], options: Partial<FrameProcessorOptions> = {}, processor?: FrameProcessor) {
  const vad = processor ?? new FrameProcessor({ frameSamples: FRAME, ...options });
  const events: (FrameEvent & { at: number })[] = [];
  for (const p of probs) {
    const at = vad.frameIndex;
    const frame = new Float32Array(FRAME).fill(at);
    for (const e of vad.process(frame, p)) events.push({ ...e, at });
  }
  return { vad, events };
}

/** Frame indexes present in speechEnd audio, one per frame. */
function framesIn(audio: Float32Array): number[] {
  return Array.from({ length: audio.length / FRAME }, (_, i) => audio[i * FRAME] ?? -1);
}

const S = 0.95; // speech
const Q = 0.1; // quiet
const M = 0.8; // between negative and positive
const rep = (p: number, n: number) => Array<number>(n).fill(p);

describe('FrameProcessor', () => {
  it('uses the spec settings and a redemption of 8 frames by default', () => {
    expect(DEFAULT_FRAME_PROCESSOR_OPTIONS).toMatchObject({
      positiveSpeechThreshold: 0.9,
      negativeSpeechThreshold: 0.65,
      minSpeechFrames: 5,
      preSpeechPadFrames: 15,
      redemptionFrames: 8,
      frameSamples: 1536,
    });
  });

  it('finds one exact segment with its pre-pad and the redemption tail', () => {
    const probs = [...rep(Q, 20), ...rep(S, 6), ...rep(Q, 8), ...rep(Q, 5)];
    const { events } = feed(probs);
    expect(events.map(({ type, at }) => [type, at])).toEqual([
      ['speechStart', 20],
      ['speechEnd', 33],
    ]);
    const end = events[1];
    if (end?.type !== 'speechEnd') throw new Error('expected speechEnd');
    expect(end).toMatchObject({ startFrame: 20, endFrame: 33, speechFrames: 6, audioStartFrame: 5 });
    // 15 frames of padding (5..19), 6 speech frames, 8 redemption frames, contiguous.
    expect(framesIn(end.audio)).toEqual(Array.from({ length: 29 }, (_, i) => 5 + i));
  });

  it('pads with only what exists when speech starts early', () => {
    const { events } = feed([Q, Q, Q, ...rep(S, 5), ...rep(Q, 8)]);
    const end = events.find((e) => e.type === 'speechEnd');
    if (end?.type !== 'speechEnd') throw new Error('expected speechEnd');
    expect(end.audioStartFrame).toBe(0);
    expect(framesIn(end.audio)[0]).toBe(0);
    expect(end.audio).toHaveLength((3 + 5 + 8) * FRAME);
  });

  it('reports a misfire when a segment has fewer than minSpeechFrames speech frames', () => {
    const { events } = feed([...rep(Q, 3), ...rep(S, 4), ...rep(Q, 8)]);
    expect(events).toEqual([
      { type: 'speechStart', frame: 3, at: 3 },
      { type: 'misfire', startFrame: 3, endFrame: 14, speechFrames: 4, at: 14 },
    ]);
  });

  it('counts speech frames across the segment, not only consecutive ones', () => {
    // 3 + 2 speech frames separated by a short pause reach minSpeechFrames together.
    const { events } = feed([...rep(S, 3), ...rep(Q, 4), ...rep(S, 2), ...rep(Q, 8)]);
    expect(events.map((e) => e.type)).toEqual(['speechStart', 'speechEnd']);
    expect(events[1]).toMatchObject({ speechFrames: 5, startFrame: 0, endFrame: 16 });
  });

  it('redeems a pause shorter than redemptionFrames and restarts the count on speech', () => {
    const { events } = feed([...rep(S, 5), ...rep(Q, 7), S, ...rep(Q, 7), ...rep(S, 2), ...rep(Q, 8)]);
    expect(events.map(({ type, at }) => [type, at])).toEqual([
      ['speechStart', 0],
      ['speechEnd', 29],
    ]);
  });

  it('neither redeems nor counts frames between the thresholds (hysteresis)', () => {
    // After 5 speech frames, M frames never end the segment; Q frames must reach 8 on their own.
    const { events } = feed([...rep(S, 5), ...rep(M, 20), ...rep(Q, 4), M, ...rep(Q, 4)]);
    expect(events.map(({ type, at }) => [type, at])).toEqual([
      ['speechStart', 0],
      ['speechEnd', 33],
    ]);
    expect(events[1]).toMatchObject({ speechFrames: 5 });
  });

  it('treats a probability equal to the positive threshold as speech and one equal to the negative as not silence', () => {
    const { events } = feed([...rep(0.9, 5), ...rep(0.65, 10), ...rep(0.64, 8)]);
    expect(events.map(({ type, at }) => [type, at])).toEqual([
      ['speechStart', 0],
      ['speechEnd', 22],
    ]);
  });

  it('closes a segment that reaches maxSpeechFrames', () => {
    const { events } = feed(rep(S, 12), { maxSpeechFrames: 10 });
    expect(events.map(({ type, at }) => [type, at])).toEqual([
      ['speechStart', 0],
      ['speechEnd', 9],
      ['speechStart', 10],
    ]);
  });

  it('finds several segments in a row with fresh padding each time', () => {
    const probs = [...rep(Q, 2), ...rep(S, 5), ...rep(Q, 8), ...rep(Q, 20), ...rep(S, 6), ...rep(Q, 8)];
    const { events } = feed(probs);
    const ends = events.filter((e) => e.type === 'speechEnd');
    expect(ends.map((e) => [e.startFrame, e.endFrame, e.type === 'speechEnd' && e.audioStartFrame])).toEqual([
      [2, 14, 0],
      [35, 48, 20],
    ]);
  });

  it('abandons an open segment on pause with a misfire and ignores frames until resumed', () => {
    const { vad, events } = feed([...rep(Q, 2), ...rep(S, 6)]);
    expect(vad.pause()).toEqual([{ type: 'misfire', startFrame: 2, endFrame: 7, speechFrames: 6 }]);
    expect(vad.pause()).toEqual([]);
    expect(feed(rep(S, 10), {}, vad).events).toEqual([]);
    expect(vad.frameIndex).toBe(8);
    vad.resume();
    const after = feed([...rep(S, 5), ...rep(Q, 8)], {}, vad).events;
    expect(after.map(({ type, at }) => [type, at])).toEqual([
      ['speechStart', 8],
      ['speechEnd', 20],
    ]);
    // Nothing from before the pause leaks into the new segment's padding.
    const end = after[1];
    expect(end?.type === 'speechEnd' && end.audioStartFrame).toBe(8);
    expect(events).toHaveLength(1);
  });

  it('drops the open segment silently on reset', () => {
    const { vad } = feed([...rep(Q, 3), ...rep(S, 3)]);
    vad.reset();
    expect(vad.inSegment).toBe(false);
    const { events } = feed([...rep(S, 5), ...rep(Q, 8)], {}, vad);
    const end = events.find((e) => e.type === 'speechEnd');
    expect(end).toMatchObject({ startFrame: 6, audioStartFrame: 6 });
  });

  it('applies raised thresholds from the next frame (anti-barge-in while the avatar speaks)', () => {
    const vad = new FrameProcessor({ frameSamples: FRAME });
    vad.setOptions({ positiveSpeechThreshold: 0.97, negativeSpeechThreshold: 0.8 });
    expect(feed(rep(S, 10), {}, vad).events).toEqual([]);
    expect(feed([0.98], {}, vad).events.map((e) => e.type)).toEqual(['speechStart']);
  });

  it('treats NaN as silence and rejects frames of the wrong size', () => {
    const { events } = feed([...rep(S, 5), ...rep(Number.NaN, 8)]);
    expect(events.map((e) => e.type)).toEqual(['speechStart', 'speechEnd']);
    expect(() => new FrameProcessor({ frameSamples: FRAME }).process(new Float32Array(3), 0.5)).toThrow(RangeError);
  });

  it('rejects inconsistent options', () => {
    expect(() => new FrameProcessor({ positiveSpeechThreshold: 0.5, negativeSpeechThreshold: 0.6 })).toThrow(RangeError);
    expect(() => new FrameProcessor({ positiveSpeechThreshold: 1.5 })).toThrow(RangeError);
    expect(() => new FrameProcessor({ redemptionFrames: 0 })).toThrow(RangeError);
    const vad = new FrameProcessor();
    expect(() => vad.setOptions({ negativeSpeechThreshold: Number.NaN })).toThrow(RangeError);
    expect(vad.settings.negativeSpeechThreshold).toBe(0.65);
  });
});
