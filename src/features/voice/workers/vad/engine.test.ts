import { describe, expect, it } from 'vitest';
import type { VadEvent } from '../protocol.ts';
import { VadEngine, type SpeechModel } from './engine.ts';

const FRAME = 8;

/** A model whose probability is the frame's first sample; each run takes `ms` of fake time. */
class FakeModel implements SpeechModel {
  resets = 0;
  released = false;
  runs = 0;
  fail = 0;
  gate: Promise<void> | null = null;
  constructor(
    private readonly clock: { t: number },
    private readonly ms = 2,
  ) {}
  async process(frame: Float32Array): Promise<number> {
    this.runs++;
    if (this.gate) await this.gate;
    if (this.fail > 0) {
      this.fail--;
      throw new Error('boom');
    }
    this.clock.t += this.ms;
    return frame[0] ?? 0;
  }
  resetState(): void {
    this.resets++;
  }
  async release(): Promise<void> {
    this.released = true;
  }
}

function setup(options: { maxQueue?: number; ms?: number } = {}) {
  const clock = { t: 0 };
  const model = new FakeModel(clock, options.ms);
  const events: VadEvent[] = [];
  const engine = new VadEngine(model, (e) => events.push(e), {
    processor: { frameSamples: FRAME },
    maxQueue: options.maxQueue,
    now: () => clock.t,
  });
  const frame = (p: number) => new Float32Array(FRAME).fill(p);
  const pushAll = (probs: number[]) => probs.forEach((p) => engine.push(frame(p)));
  return { clock, model, events, engine, frame, pushAll };
}

const speech = (n: number) => Array<number>(n).fill(0.95);
const quiet = (n: number) => Array<number>(n).fill(0.05);
const kinds = (events: VadEvent[]) => events.filter((e) => e.type !== 'stats').map((e) => e.type);

describe('VadEngine', () => {
  it('runs frames through the model in order and emits segment events', async () => {
    const { engine, events, pushAll } = setup();
    pushAll([...quiet(3), ...speech(6), ...quiet(8)]);
    await engine.idle();
    expect(kinds(events)).toEqual(['speechStart', 'speechEnd']);
    const end = events.find((e) => e.type === 'speechEnd');
    expect(end).toMatchObject({ startFrame: 3, endFrame: 16, audioStartFrame: 0 });
    expect(end?.type === 'speechEnd' && end.audio.length).toBe(17 * FRAME);
  });

  it('a frame the echo gate silenced is silence without inference, and the first of a run resets the model', async () => {
    const { engine, model, events, pushAll } = setup();
    const gated = (n: number) => Array.from({ length: n }, () => engine.push(new Float32Array(0)));
    pushAll(quiet(2));
    gated(3);
    // The visitor, then the avatar's words gated away: the segment ends on them as on silence.
    pushAll(speech(5));
    gated(10);
    pushAll(quiet(1));
    await engine.idle();
    expect(model.runs).toBe(2 + 5 + 1);
    expect(model.resets).toBe(2);
    expect(kinds(events)).toEqual(['speechStart', 'speechEnd']);
    const end = events.find((e) => e.type === 'speechEnd');
    expect(end).toMatchObject({ startFrame: 5, endFrame: 17 });
    // Its audio: the visitor's frames, then the gated ones as zeros.
    const audio = end?.type === 'speechEnd' ? end.audio : new Float32Array();
    expect(Array.from(audio.subarray(audio.length - 3 * FRAME))).toEqual(Array<number>(3 * FRAME).fill(0));
    expect(events.some((e) => e.type === 'warning')).toBe(false);
  });

  it('emits stats at most once per interval with median and p95 inference time', async () => {
    const { engine, events, pushAll } = setup({ ms: 10, maxQueue: 1000 });
    pushAll(quiet(250)); // 2.5 s of fake inference time
    await engine.idle();
    const stats = events.filter((e) => e.type === 'stats');
    expect(stats).toHaveLength(2);
    expect(stats[0]).toEqual({ type: 'stats', frames: 100, dropped: 0, inferMsMedian: 10, inferMsP95: 10 });
    expect(stats[1]).toMatchObject({ frames: 200 });
  });

  it('drops the oldest frames when inference falls behind and counts them', async () => {
    const { engine, model, events, pushAll } = setup({ maxQueue: 4, ms: 1000 });
    let open!: () => void;
    model.gate = new Promise((r) => (open = r));
    pushAll(quiet(10)); // the first is in the model, 9 queue up behind it
    open();
    await engine.idle();
    expect(model.runs).toBe(5);
    expect(events.find((e) => e.type === 'stats')).toMatchObject({ dropped: 5 });
  });

  it('reports bad port messages once and ignores them', async () => {
    const { engine, events, model } = setup();
    engine.push('hello');
    engine.push(new Float32Array(3));
    engine.push(new Int16Array(FRAME));
    await engine.idle();
    expect(events).toEqual([{ type: 'warning', message: 'unexpected message on the frame port: string' }]);
    expect(model.runs).toBe(0);
  });

  it('closes an open segment with a misfire on pause, ignores frames while paused, resumes cleanly', async () => {
    const { engine, events, pushAll, model } = setup();
    pushAll(speech(6));
    await engine.idle();
    engine.setPaused(true);
    expect(kinds(events)).toEqual(['speechStart', 'misfire']);
    expect(model.resets).toBe(1);
    pushAll(speech(6));
    await engine.idle();
    expect(model.runs).toBe(6);
    engine.setPaused(false);
    pushAll([...speech(5), ...quiet(8)]);
    await engine.idle();
    expect(kinds(events)).toEqual(['speechStart', 'misfire', 'speechStart', 'speechEnd']);
  });

  it('discards the result of a frame that was in the model during a reset', async () => {
    const { engine, model, events, pushAll } = setup();
    let open!: () => void;
    model.gate = new Promise((r) => (open = r));
    pushAll(speech(3));
    engine.reset();
    open();
    await engine.idle();
    expect(events).toEqual([]);
    // One reset for reset(), one to undo the state update of the in-flight frame.
    expect(model.resets).toBe(2);
  });

  it('applies new thresholds to the following frames', async () => {
    const { engine, events, pushAll } = setup();
    engine.setThresholds({ positiveSpeechThreshold: 0.99, negativeSpeechThreshold: 0.9 });
    pushAll(speech(10));
    await engine.idle();
    expect(events).toEqual([]);
    expect(() => engine.setThresholds({ positiveSpeechThreshold: 2 })).toThrow(RangeError);
  });

  it('survives a transient inference error and stops after three in a row', async () => {
    const { engine, model, events, pushAll } = setup();
    model.fail = 1;
    pushAll(quiet(2));
    await engine.idle();
    // One failure is a warning (the call goes on); only the third in a row is an error.
    expect(kinds(events)).toEqual(['warning']);
    model.fail = 3;
    pushAll(quiet(5));
    await engine.idle();
    expect(kinds(events)).toEqual(['warning', 'warning', 'warning', 'error']);
    expect(events.at(-1)).toMatchObject({ message: expect.stringContaining('stopped after 3 failures') });
    const runs = model.runs;
    pushAll(quiet(2));
    await engine.idle();
    expect(model.runs).toBe(runs);
  });

  it('waits for the frame in flight, then releases the model on dispose', async () => {
    const { engine, model, pushAll } = setup();
    pushAll(quiet(5));
    await engine.dispose();
    expect(model.released).toBe(true);
    expect(model.runs).toBe(1);
    pushAll(quiet(1));
    expect(model.runs).toBe(1);
  });
});
