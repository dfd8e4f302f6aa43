import * as Comlink from 'comlink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VadEvent, VadInitOptions, VadThresholds, VadWorkerApi } from './protocol.ts';
import { DEFAULT_MODEL_URL, createVad, type WorkerLike } from './vad.client.ts';

/**
 * A Worker-shaped endpoint over a MessagePort: messages go through the port, `error` events
 * are kept here (Node's MessagePort only accepts Node's Event class, not jsdom's).
 */
function endpointOver(port: MessagePort) {
  const errorListeners = new Set<EventListener>();
  port.start();
  const endpoint: WorkerLike & { fail(message: string): void } = {
    postMessage: (message: unknown, transfer?: Transferable[]) => port.postMessage(message, transfer ?? []),
    addEventListener: (type: string, listener: EventListenerOrEventListenerObject) =>
      type === 'error' ? errorListeners.add(listener as EventListener) : port.addEventListener(type as 'message', listener),
    removeEventListener: (type: string, listener: EventListenerOrEventListenerObject) =>
      type === 'error' ? errorListeners.delete(listener as EventListener) : port.removeEventListener(type as 'message', listener),
    terminate: vi.fn(() => port.close()),
    fail: (message) => errorListeners.forEach((l) => l(Object.assign(new Event('error'), { message }))),
  };
  return endpoint;
}

/** A worker stand-in: the real comlink protocol over a MessageChannel, a scripted API behind it. */
function fakeWorker(behaviour: { initError?: string; hangDispose?: boolean } = {}) {
  const channel = new MessageChannel();
  const calls: { init?: VadInitOptions; paused: boolean[]; thresholds: Partial<VadThresholds>[]; disposed: number } = {
    paused: [],
    thresholds: [],
    disposed: 0,
  };
  let onEvent: ((e: VadEvent) => void) | null = null;
  const frames: unknown[] = [];
  const ports: MessagePort[] = [];
  const api: VadWorkerApi = {
    async init(options, cb) {
      calls.init = options;
      if (behaviour.initError) throw new Error(behaviour.initError);
      onEvent = cb;
    },
    attachPort(port) {
      ports.push(port);
      port.onmessage = (e) => frames.push(e.data);
    },
    setPaused: (p) => void calls.paused.push(p),
    setThresholds: (t) => void calls.thresholds.push(t),
    reset: () => {},
    async dispose() {
      calls.disposed++;
      if (behaviour.hangDispose) await new Promise(() => {});
    },
  };
  Comlink.expose(api, channel.port2);
  const endpoint = endpointOver(channel.port1);
  return { endpoint, calls, frames, ports, terminate: endpoint.terminate, send: (e: VadEvent) => onEvent?.(e) };
}

const clients: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('createVad', () => {
  it('takes a frame port whenever it is given; frames posted before, and before the model is ready, wait for it', async () => {
    const worker = fakeWorker();
    const vad = createVad({ createWorker: () => worker.endpoint });
    clients.push(vad);
    const frames = new MessageChannel();
    frames.port1.postMessage(new Float32Array(2));
    frames.port1.postMessage(new Float32Array(3));
    vad.adoptPort(frames.port2);
    await vad.ready;
    await until(() => worker.frames.length === 2);
    expect(worker.frames.map((f) => (f as Float32Array).length)).toEqual([2, 3]);
  });

  it('initialises the worker with the model, wasm and frame size, then attaches a frame port', async () => {
    const worker = fakeWorker();
    const vad = createVad({ createWorker: () => worker.endpoint, thresholds: { positiveSpeechThreshold: 0.95 } });
    clients.push(vad);
    await vad.ready;
    expect(worker.calls.init).toMatchObject({
      modelUrl: DEFAULT_MODEL_URL,
      frameSamples: 1536,
      thresholds: { positiveSpeechThreshold: 0.95 },
    });
    expect(DEFAULT_MODEL_URL).toMatch(/silero_vad_legacy(-[\w-]+)?\.onnx$/);
    expect(worker.calls.init?.wasmPaths).toEqual({ wasm: expect.stringContaining('ort-wasm-simd-threaded') });
    // What the worklet posts on its end reaches the worker without the main thread in between.
    const frames = new MessageChannel();
    vad.adoptPort(frames.port2);
    frames.port1.postMessage(new Float32Array(4));
    await until(() => worker.frames.length === 1);
    expect(Object.prototype.toString.call(worker.frames[0])).toBe('[object Float32Array]');
  });

  it('delivers worker events to the listeners of their type until unsubscribed', async () => {
    const worker = fakeWorker();
    const vad = createVad({ createWorker: () => worker.endpoint });
    clients.push(vad);
    await vad.ready;
    const starts: VadEvent[] = [];
    const ends: VadEvent[] = [];
    const off = vad.on('speechStart', (e) => starts.push(e));
    vad.on('speechEnd', (e) => ends.push(e));
    worker.send({ type: 'speechStart', frame: 3 });
    const audio = new Float32Array([1, 2]);
    worker.send({ type: 'speechEnd', audio, startFrame: 3, endFrame: 12, speechFrames: 6, audioStartFrame: 0 });
    await until(() => ends.length === 1);
    expect(starts).toEqual([{ type: 'speechStart', frame: 3 }]);
    expect(ends[0]).toMatchObject({ type: 'speechEnd', endFrame: 12 });
    off();
    worker.send({ type: 'speechStart', frame: 20 });
    worker.send({ type: 'misfire', startFrame: 20, endFrame: 28, speechFrames: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(starts).toHaveLength(1);
  });

  it('forwards mute and thresholds to the worker', async () => {
    const worker = fakeWorker();
    const vad = createVad({ createWorker: () => worker.endpoint });
    clients.push(vad);
    await vad.ready;
    await vad.setPaused(true);
    await vad.setThresholds({ positiveSpeechThreshold: 0.97 });
    expect(worker.calls.paused).toEqual([true]);
    expect(worker.calls.thresholds).toEqual([{ positiveSpeechThreshold: 0.97 }]);
  });

  it('takes the frame port of each new worklet, and the worker lets go of the one before', async () => {
    const worker = fakeWorker();
    const vad = createVad({ createWorker: () => worker.endpoint });
    clients.push(vad);
    await vad.ready;
    const first = new MessageChannel();
    const second = new MessageChannel();
    vad.adoptPort(first.port2);
    vad.adoptPort(second.port2);
    await until(() => worker.ports.length === 2);
    second.port1.postMessage(new Float32Array(5));
    await until(() => worker.frames.length === 1);
  });

  it('terminates the worker and rejects when init fails', async () => {
    const worker = fakeWorker({ initError: 'model 404' });
    const vad = createVad({ createWorker: () => worker.endpoint });
    await expect(vad.ready).rejects.toThrow('model 404');
    expect(worker.terminate).toHaveBeenCalledTimes(1);
  });

  it('rejects when the worker script fails to load instead of waiting forever', async () => {
    const channel = new MessageChannel(); // nobody answers on the other side
    const endpoint = endpointOver(channel.port1);
    const vad = createVad({ createWorker: () => endpoint });
    const errors: VadEvent[] = [];
    vad.on('error', (e) => errors.push(e));
    endpoint.fail('worker 404');
    await expect(vad.ready).rejects.toThrow('worker 404');
    expect(errors).toEqual([{ type: 'error', message: 'worker 404' }]);
    expect(endpoint.terminate).toHaveBeenCalled();
    channel.port2.close();
  });

  it('rejects and cleans up when aborted during init', async () => {
    const channel = new MessageChannel(); // nobody answers on the other side
    const endpoint = endpointOver(channel.port1);
    const abort = new AbortController();
    const vad = createVad({ createWorker: () => endpoint, signal: abort.signal });
    abort.abort(new Error('cancelled'));
    await expect(vad.ready).rejects.toThrow('cancelled');
    expect(endpoint.terminate).toHaveBeenCalled();
    channel.port2.close();
  });

  it('disposes once; a worker that hangs is terminated after the 500 ms grace, not before', async () => {
    const worker = fakeWorker({ hangDispose: true });
    const vad = createVad({ createWorker: () => worker.endpoint });
    await vad.ready;
    const realTick = ((setTimeout) => () => new Promise((r) => setTimeout(r, 1)))(globalThis.setTimeout);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let settled = false;
      const both = Promise.all([vad.dispose(), vad.dispose()]).then(() => (settled = true));
      // The dispose call crosses a real MessageChannel: wait for it on real time.
      for (let i = 0; i < 1000 && worker.calls.disposed === 0; i++) await realTick();
      expect(worker.calls.disposed).toBe(1);
      await vi.advanceTimersByTimeAsync(450);
      expect(settled).toBe(false);
      expect(worker.terminate).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(100);
      await both;
    } finally {
      vi.useRealTimers();
    }
    expect(worker.calls.disposed).toBe(1);
    expect(worker.terminate).toHaveBeenCalledTimes(1);
  });
});
