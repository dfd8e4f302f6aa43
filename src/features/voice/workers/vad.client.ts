/**
 * Main-thread handle on the VAD worker (comlink). It creates the worker, initialises the
 * model, and hands the worker the receiving end of a MessageChannel whose other end the
 * caller gave the capture worklet (`adoptPort`): frames then flow worklet → worker directly.
 * The main thread only receives events.
 */
import * as Comlink from 'comlink';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import sileroModelUrl from 'virtual:silero-vad-model';
import vadWorkerUrl from './vad.worker.ts?worker&url';
import {
  FRAME_SAMPLES,
  type VadEvent,
  type VadEventType,
  type VadInitOptions,
  type VadThresholds,
  type VadWorkerApi,
} from './protocol.ts';
import { throwIfAborted } from '../../../services/compat.ts';
import { waitAtMost } from '../../../services/deadline.ts';

/** The pinned package's model, checked by sha256 and emitted as a hashed asset (scripts/sileroModel.ts). */
export const DEFAULT_MODEL_URL: string = sileroModelUrl;
/**
 * The runtime's wasm as a Vite asset: a content-hashed name (immutable caching), bundled
 * with the app so it works offline; the runtime's JS glue is already inside the bundled
 * `onnxruntime-web/wasm` entry, so only the .wasm needs a URL.
 */
export const DEFAULT_WASM_PATHS = { wasm: ortWasmUrl };
export const VAD_WORKER_URL: string = vadWorkerUrl;

export interface WorkerLike extends Comlink.Endpoint {
  terminate(): void;
}

export interface CreateVadOptions extends Partial<Omit<VadInitOptions, 'frameSamples'>> {
  /** Tests pass a fake; production starts the bundled module worker. */
  createWorker?: () => WorkerLike;
  /** Aborting before init finishes terminates the worker and rejects. */
  signal?: AbortSignal;
}

type Listener<T extends VadEventType> = (event: Extract<VadEvent, { type: T }>) => void;

export interface VadClient {
  /**
   * Resolves when the model is loaded; rejects (and the client disposes itself) when the
   * worker or the model fails to load, or on abort.
   */
  readonly ready: Promise<void>;
  /**
   * Hands the worker the receiving end of a frame channel, whose other end the capture
   * worklet posts to (the worker lets go of the one before). Frames posted before the port
   * is adopted, or before the model is ready, wait in the channel and are processed then.
   * A call gives its port only once the model is ready (features/voice/services/pipeline/wiring.ts),
   * so the detector hears live audio, not a backlog.
   */
  adoptPort(port: MessagePort): void;
  on<T extends VadEventType>(type: T, listener: Listener<T>): () => void;
  setPaused(paused: boolean): Promise<void>;
  setThresholds(thresholds: Partial<VadThresholds>): Promise<void>;
  reset(): Promise<void>;
  /** Idempotent: asks the worker to release the model (briefly), then terminates it. */
  dispose(): Promise<void>;
}

const DISPOSE_GRACE_MS = 500;

function startWorker(): WorkerLike {
  return new Worker(VAD_WORKER_URL, { type: 'module', name: 'vad' });
}

/** A promise that rejects when `target` fires `type`, with its listener removable. */
export function rejectOn(target: Pick<EventTarget, 'addEventListener'>, type: string, reason: (event: Event) => unknown) {
  let listener: (event: Event) => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    listener = (event) => reject(reason(event));
    target.addEventListener(type, listener, { once: true });
  });
  promise.catch(() => {});
  return { promise, listener };
}

export function createVad(options: CreateVadOptions = {}): VadClient {
  const { createWorker = startWorker, signal, ...init } = options;
  throwIfAborted(signal);
  const worker = createWorker();
  const remote = Comlink.wrap<VadWorkerApi>(worker);
  const listeners = new Map<VadEventType, Set<(event: VadEvent) => void>>();
  const emit = (event: VadEvent) => listeners.get(event.type)?.forEach((listener) => listener(event));
  let disposing: Promise<void> | null = null;

  // A worker that fails to load never answers init(): its error event must end the wait.
  const workerFailed = rejectOn(worker, 'error', (event) => {
    const message = (event as ErrorEvent).message || 'VAD worker failed to load';
    emit({ type: 'error', message });
    return new Error(message);
  });
  const aborted = signal ? rejectOn(signal, 'abort', () => signal.reason) : null;

  const adoptPort = (port: MessagePort): void => {
    // Not awaited: comlink keeps call order, and the worker holds the port until ready.
    remote.attachPort(Comlink.transfer(port, [port])).catch(() => {});
  };

  const dispose = (): Promise<void> => (disposing ??= release());
  const release = async (): Promise<void> => {
    // A hung worker must not hold up stop(): it gets a short grace, then is terminated.
    await waitAtMost(remote.dispose().catch(() => {}), DISPOSE_GRACE_MS);
    remote[Comlink.releaseProxy]();
    worker.removeEventListener('error', workerFailed.listener);
    if (signal && aborted) signal.removeEventListener('abort', aborted.listener);
    worker.terminate();
    listeners.clear();
  };

  const initOptions: VadInitOptions = {
    modelUrl: init.modelUrl ?? DEFAULT_MODEL_URL,
    wasmPaths: init.wasmPaths ?? DEFAULT_WASM_PATHS,
    frameSamples: FRAME_SAMPLES,
    ...(init.thresholds && { thresholds: init.thresholds }),
    ...(init.processor && { processor: init.processor }),
    ...(init.numThreads !== undefined && { numThreads: init.numThreads }),
  };
  const ready = Promise.race([
    remote.init(initOptions, Comlink.proxy(emit)),
    workerFailed.promise,
    ...(aborted ? [aborted.promise] : []),
  ]).catch(async (err: unknown) => {
    await dispose();
    throw err;
  });
  // Whoever awaits `ready` sees the rejection; nobody awaiting it is not an error.
  ready.catch(() => {});

  return {
    ready,
    adoptPort,
    on(type, listener) {
      const set = listeners.get(type) ?? new Set();
      listeners.set(type, set);
      const wrapped = listener as (event: VadEvent) => void;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
    setPaused: (paused) => remote.setPaused(paused),
    setThresholds: (thresholds) => remote.setThresholds(thresholds),
    reset: () => remote.reset(),
    dispose,
  };
}
