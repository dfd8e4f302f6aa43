/**
 * The VAD worker: Silero (onnxruntime-web, wasm) on frames that arrive on a MessagePort
 * straight from the capture worklet. The main thread only sees events, through the
 * comlink-proxied callback given to init(). See protocol.ts for the whole picture.
 *
 * Threads: onnxruntime runs single-threaded unless the page is cross-origin isolated AND
 * the caller asks for more. The model is tiny (≈3 ms per 96 ms frame), so threads would
 * only add start-up and synchronisation cost, and the bundled runtime would start its
 * pthread workers from this very chunk.
 */
import * as Comlink from 'comlink';
import * as ort from 'onnxruntime-web/wasm';
import { FRAME_SAMPLES, type VadEvent, type VadInitOptions, type VadWorkerApi } from './protocol.ts';
import { VadEngine } from './vad/engine.ts';
import { SileroLegacy } from './vad/silero.ts';

let engine: VadEngine | null = null;
let framePort: MessagePort | null = null;
let emit: (event: VadEvent) => void = () => {};
/** Released on dispose so comlink closes the callback's channel on both sides. */
let releaseCallback: () => void = () => {};

/**
 * Frames start flowing only once both the engine and the port exist. Until then the port
 * is not started, so the browser queues what the worklet posts (the start of a call).
 */
function connect(): void {
  const target = engine;
  if (!target || !framePort) return;
  framePort.onmessage = (event: MessageEvent<unknown>) => target.push(event.data);
  framePort.onmessageerror = () => emit({ type: 'warning', message: 'a frame could not be deserialised' });
}

/** Closes the frame port of the call before (or of the last call) and lets go of its handlers. */
function closeFramePort(): void {
  if (!framePort) return;
  framePort.onmessage = null;
  framePort.onmessageerror = null;
  framePort.close();
  framePort = null;
}

function requireEngine(): VadEngine {
  if (!engine) throw new Error('VAD worker used before init()');
  return engine;
}

async function fetchModel(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`model ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const api: VadWorkerApi = {
  async init(options: VadInitOptions, onEvent) {
    if (engine) throw new Error('VAD worker already initialised');
    if (options.frameSamples !== FRAME_SAMPLES) {
      // The Silero legacy model is only validated on 1536-sample frames at 16 kHz.
      throw new Error(`frameSamples must be ${FRAME_SAMPLES}, got ${options.frameSamples}`);
    }
    emit = (event) => {
      const message = event.type === 'speechEnd' ? Comlink.transfer(event, [event.audio.buffer]) : event;
      // The main thread may be gone (page closing): nothing to do about it here.
      Promise.resolve(onEvent(message)).catch(() => {});
    };
    releaseCallback = () => (onEvent as unknown as Comlink.Remote<unknown>)[Comlink.releaseProxy]();
    ort.env.logLevel = 'warning';
    ort.env.wasm.wasmPaths = options.wasmPaths;
    ort.env.wasm.proxy = false;
    ort.env.wasm.numThreads = self.crossOriginIsolated ? Math.max(1, Math.floor(options.numThreads ?? 1)) : 1;
    const model = await SileroLegacy.create(ort, await fetchModel(options.modelUrl));
    // The first run pays for kernel setup (≈1 s seen in Chromium): pay it before `ready`,
    // not on the visitor's first words.
    await model.process(new Float32Array(options.frameSamples));
    model.resetState();
    engine = new VadEngine(model, (event) => emit(event), {
      processor: { ...options.processor, ...options.thresholds, frameSamples: options.frameSamples },
    });
    connect();
  },

  attachPort(port: MessagePort) {
    closeFramePort();
    framePort = port;
    connect();
  },

  setPaused(paused: boolean) {
    requireEngine().setPaused(paused);
  },

  setThresholds(thresholds) {
    requireEngine().setThresholds(thresholds);
  },

  reset() {
    requireEngine().reset();
  },

  async dispose() {
    closeFramePort();
    const current = engine;
    engine = null;
    await current?.dispose();
    emit = () => {};
    releaseCallback();
    releaseCallback = () => {};
  },
};

Comlink.expose(api);
