import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * The real processor under a minimal AudioWorkletGlobalScope. It is loaded by a specifier
 * TypeScript does not follow: the worklet is type-checked in its own program
 * (tsconfig.worklet.json), not in this DOM one.
 */
type Processor = { port: MessagePort; process(inputs: Float32Array[][]): boolean };
type ProcessorClass = new (options?: { processorOptions?: unknown }) => Processor;

const registered = new Map<string, ProcessorClass>();
/** The main-thread side of each processor's node.port. */
const nodePorts = new WeakMap<Processor, MessagePort>();

class FakeAudioWorkletProcessor {
  readonly port: MessagePort;
  constructor() {
    const channel = new MessageChannel();
    this.port = channel.port1;
    nodePorts.set(this as unknown as Processor, channel.port2);
  }
}

beforeAll(async () => {
  vi.stubGlobal('AudioWorkletProcessor', FakeAudioWorkletProcessor);
  vi.stubGlobal('registerProcessor', (name: string, ctor: ProcessorClass) => registered.set(name, ctor));
  vi.stubGlobal('sampleRate', 48_000);
  const path = './capture.worklet.ts';
  await import(/* @vite-ignore */ path);
});

afterAll(() => {
  vi.unstubAllGlobals();
});

const settle = () => new Promise((r) => setTimeout(r, 20));

function setup(processorOptions?: unknown) {
  const Ctor = registered.get('capture-processor');
  if (!Ctor) throw new Error('capture-processor was not registered');
  const processor = new Ctor({ processorOptions });
  const node = nodePorts.get(processor)!;
  const reports: unknown[] = [];
  node.onmessage = (e) => reports.push(e.data);
  const vad = new MessageChannel();
  const asr = new MessageChannel();
  const frames: Float32Array[] = [];
  const pcm: Int16Array[] = [];
  vad.port2.onmessage = (e) => frames.push(e.data as Float32Array);
  asr.port2.onmessage = (e) => pcm.push(e.data as Int16Array);
  const block = (value: number) => [[new Float32Array(128).fill(value)]];
  /** 36 quanta of 128 samples at 48 kHz = 1536 samples at 16 kHz, plus the filter's reach. */
  const feed = (quanta: number, value = 0.25) => {
    for (let i = 0; i < quanta; i++) expect(processor.process(block(value))).toBe(true);
  };
  const connect = () => node.postMessage({ type: 'ports', vad: vad.port1, asr: asr.port1 }, [vad.port1, asr.port1]);
  return { processor, node, reports, frames, pcm, feed, connect, asrPort: asr.port1, close: () => (vad.port2.close(), asr.port2.close(), node.close()) };
}

describe('capture-processor', () => {
  it('posts nothing before it has its ports, then 1536-sample frames and their PCM copies', async () => {
    const t = setup();
    t.feed(40);
    t.connect();
    await settle();
    expect(t.reports).toEqual([{ type: 'started', sampleRate: 48_000 }]);
    t.feed(36 * 3 + 1);
    await settle();
    expect(t.frames.length).toBe(3);
    expect(t.frames.every((f) => f.length === 1536)).toBe(true);
    expect(t.pcm.map((p) => p.length)).toEqual([1536, 1536, 1536]);
    // Past the filter's start-up, a constant 0.25 stays 0.25 (and 8192 in 16-bit PCM).
    expect(t.frames[2]?.[100]).toBeCloseTo(0.25, 5);
    expect(t.pcm[2]?.[100]).toBe(8192);
    t.close();
  });

  it('stops posting while paused and resumes without the partial frame from before', async () => {
    const t = setup();
    t.connect();
    await settle();
    t.feed(20);
    t.node.postMessage({ type: 'pause' });
    await settle();
    t.feed(100);
    await settle();
    expect(t.frames).toHaveLength(0);
    t.node.postMessage({ type: 'resume' });
    await settle();
    t.feed(36);
    await settle();
    // 20 quanta before the pause were dropped, so 36 quanta after it are just short of a frame.
    expect(t.frames).toHaveLength(0);
    t.feed(1);
    await settle();
    expect(t.frames).toHaveLength(1);
    t.close();
  });

  it('without a VAD port (hold to talk) feeds only the recognizer', async () => {
    const t = setup();
    t.node.postMessage({ type: 'ports', vad: null, asr: t.asrPort }, [t.asrPort]);
    await settle();
    t.feed(37);
    await settle();
    expect(t.reports).toEqual([{ type: 'started', sampleRate: 48_000 }]);
    expect(t.pcm.map((p) => p.length)).toEqual([1536]);
    expect(t.frames).toEqual([]);
    t.close();
  });

  it('voice detection joining later gets frames from then on only, not what was captured before', async () => {
    const t = setup();
    t.node.postMessage({ type: 'ports', vad: null, asr: t.asrPort }, [t.asrPort]);
    await settle();
    t.feed(37);
    await settle();
    const late = new MessageChannel();
    const frames: Float32Array[] = [];
    late.port2.onmessage = (e) => frames.push(e.data as Float32Array);
    t.node.postMessage({ type: 'vadPort', port: late.port1 }, [late.port1]);
    t.node.postMessage({ type: 'vadPort', port: 5 });
    await settle();
    expect(frames).toEqual([]);
    t.feed(36);
    await settle();
    expect(frames.map((f) => f.length)).toEqual([1536]);
    expect(t.pcm).toHaveLength(2);
    expect(t.reports).toEqual([{ type: 'started', sampleRate: 48_000 }, { type: 'error', message: 'vadPort message without a MessagePort' }]);
    late.port2.close();
    t.close();
  });

  it('takes its ports in a scope without a MessagePort global (older WebKit worklets)', async () => {
    const t = setup();
    const RealMessagePort = globalThis.MessagePort;
    vi.stubGlobal('MessagePort', undefined);
    try {
      t.connect();
      await settle();
    } finally {
      vi.stubGlobal('MessagePort', RealMessagePort);
    }
    t.feed(37);
    await settle();
    expect(t.reports).toEqual([{ type: 'started', sampleRate: 48_000 }]);
    expect(t.frames.map((f) => f.length)).toEqual([1536]);
    t.close();
  });

  it('the echo gate silences a microphone far below the avatar, but not when the avatar plays that much quieter', async () => {
    const t = setup({ echoGateDb: -18 });
    t.connect();
    await settle();
    // The microphone 25 dB below the avatar's received audio: its echo, at full volume.
    const near = 0.25 * 10 ** (-25 / 20);
    const quanta = (n: number) => {
      for (let i = 0; i < n; i++) t.processor.process([[new Float32Array(128).fill(near)], [new Float32Array(128).fill(0.25)]]);
    };
    const silent = (frame: Float32Array | undefined) => !!frame && frame.every((x) => x === 0);
    quanta(37);
    await settle();
    expect(t.frames).toHaveLength(1);
    expect(silent(t.frames[0])).toBe(true);
    // Voice detection is told it is silence (an empty frame: no model run for it); the
    // recognizer hears the frame's 96 ms as zeros.
    expect(t.frames[0]).toHaveLength(0);
    expect(t.pcm).toHaveLength(1);
    expect(t.pcm[0]).toHaveLength(1536);
    expect(t.pcm[0]!.every((x) => x === 0)).toBe(true);
    // A volume out of range changes nothing.
    t.node.postMessage({ type: 'farVolume', volume: 2 });
    await settle();
    quanta(36);
    await settle();
    expect(silent(t.frames[1])).toBe(true);
    // The echo canceller's warm-up plays the greeting at 0.005 (−46 dB): its echo is that much
    // quieter, and the microphone's 25 dB below the received audio is the visitor, once the
    // echo of what played loud before (the gate's last two frames) is past.
    t.node.postMessage({ type: 'farVolume', volume: 0.005 });
    await settle();
    quanta(3 * 36);
    await settle();
    expect(t.frames.slice(2).map(silent)).toEqual([true, true, false]);
    t.close();
  });

  it('while the avatar plays lowered, its echo (as much quieter) is still silenced: the avatar speaks whatever its volume', async () => {
    const t = setup({ echoGateDb: -18 });
    t.connect();
    t.node.postMessage({ type: 'farVolume', volume: 0.005 });
    await settle();
    // The avatar speaks at −12 dBFS and plays at 0.005: as played it is below the gate's floor,
    // and its echo 25 dB below that (about −83 dBFS) is still speech to voice detection.
    const far = 0.25;
    const echo = far * 0.005 * 10 ** (-25 / 20);
    const visitor = 0.05;
    const silent = (frame: Float32Array | undefined) => !!frame && frame.every((x) => x === 0);
    const quanta = (n: number, near: number) => {
      for (let i = 0; i < n; i++) t.processor.process([[new Float32Array(128).fill(near)], [new Float32Array(128).fill(far)]]);
    };
    quanta(37 + 36, echo);
    await settle();
    expect(t.frames.map(silent)).toEqual([true, true]);
    // The visitor, far louder than the lowered avatar, is heard at once.
    quanta(36, visitor);
    await settle();
    expect(silent(t.frames[2])).toBe(false);
    t.close();
  });

  it("a raised volume counts for the avatar's last frames too: the echo of a word just received comes out at the new volume", async () => {
    // The warm-up's ramp raises the avatar 7.7 dB a step, more than the 7 dB between its echo
    // (−25 dB) and the gate (−18 dB). A loudspeaker's volume acts on what it is playing, so the
    // echo of the word received just before a step comes out raised; compared with that word
    // at its old volume, it passed for the visitor and the hangover let 768 ms of it through.
    const t = setup({ echoGateDb: -18 });
    t.connect();
    const before = 0.0085;
    const after = before * 10 ** (7.7 / 20);
    t.node.postMessage({ type: 'farVolume', volume: before });
    await settle();
    const echo = (far: number, volume: number) => far * volume * 10 ** (-25 / 20);
    const quanta = (n: number, near: number, far: number) => {
      for (let i = 0; i < n; i++) t.processor.process([[new Float32Array(128).fill(near)], [new Float32Array(128).fill(far)]]);
    };
    const silent = (frame: Float32Array | undefined) => !!frame && frame.every((x) => x === 0);
    // A word, and its echo as it plays.
    quanta(37, echo(0.25, before), 0.25);
    await settle();
    t.node.postMessage({ type: 'farVolume', volume: after });
    await settle();
    // The pause after it: nothing received, and the word's echo, at the raised volume.
    quanta(36, echo(0.25, after), 0);
    // Its tail, quieter: still the avatar (no hangover opened the gate).
    quanta(36, echo(0.25, after) / 2, 0);
    await settle();
    expect(t.frames.map(silent)).toEqual([true, true, true]);
    t.close();
  });

  it('ends on stop (process returns false) and reports bad control messages', async () => {
    const t = setup({ frameSamples: -3 });
    t.node.postMessage({ type: 'ports', vad: 1, asr: 2 });
    t.node.postMessage({ type: 'dance' });
    await settle();
    expect(t.reports).toEqual([
      { type: 'error', message: 'ports message without a recognizer MessagePort (and a VAD one or null)' },
      { type: 'error', message: 'unknown control message dance' },
    ]);
    t.connect();
    await settle();
    t.feed(37);
    await settle();
    // The invalid frameSamples fell back to 1536.
    expect(t.frames.map((f) => f.length)).toEqual([1536]);
    t.node.postMessage({ type: 'stop' });
    await settle();
    expect(t.processor.process([[new Float32Array(128)]])).toBe(false);
    // Its port lets go of the processor: Chromium may keep the node (and the port) alive.
    expect(t.processor.port.onmessage).toBeNull();
    t.close();
  });
});
