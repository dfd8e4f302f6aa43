/**
 * Keeps one voice detector (the VAD worker with onnxruntime and the Silero model loaded)
 * for the calls of a live session.
 *
 * Why: loading it costs a few seconds of CPU on a slow phone (most of it compiling the
 * 14 MB onnxruntime wasm and creating the session), and until it is ready a call's sentences
 * are marked by the recognizer alone, without barge-in on the visitor's first sound. Loaded in the background once the session is live, and handed from call to call,
 * it lets Start call open the call as soon as the microphone is open. It costs one idle
 * worker's memory for the session; release() frees it when the session ends.
 *
 * At most one detector is kept. One that comes back while another is kept, or after
 * release(), is disposed. A call's detector counts as kept from the moment its call starts
 * stopping, not once it is back: the next Start call, often tapped while the last call's
 * worker still works through its final frames, waits for it instead of loading another.
 */
import type { VadClient } from '../workers/vad.client.ts';
import { createLogger } from '../../../services/logger.ts';
import type { WarmVoice } from './pipeline.ts';

const log = createLogger('voice');

interface Kept {
  /** Resolves once loaded or back from its call; null if it could not load or come back (it is disposed then). */
  ready: Promise<WarmVoice | null>;
  /** Disposes it, stopping a load it is still in; one coming back from a call is disposed once back, unwaited. */
  disposeNow: () => Promise<void>;
}

/** A kept detector handed to a call. */
export interface Handed {
  readonly ready: Promise<WarmVoice | null>;
  cancel(): void;
}

export class DetectorKeeper {
  /** The kept detector, loaded or loading. */
  private kept: Kept | null = null;
  /** Between warm() and release(): detectors coming back are kept. */
  private open = false;
  /** Detectors handed out (or null handed out: the call makes its own) and not back yet. */
  private lent = 0;

  constructor(private readonly create: () => VadClient) {}

  /** Starts loading a detector to keep, unless one is kept, loading or in a call. Never throws. */
  warm(): void {
    this.open = true;
    if (this.kept || this.lent > 0) return;
    let vad: VadClient;
    try {
      vad = this.create();
    } catch (error) {
      // new Worker() can throw (a blocked script, no workers at all): calls make their own.
      log.warn('the voice detector could not be started ahead of a call', String(error));
      return;
    }
    const warm: WarmVoice = { vad, dispose: () => vad.dispose() };
    let cancelled = false;
    const kept: Kept = {
      disposeNow: () => ((cancelled = true), vad.dispose()),
      ready: vad.ready.then(
        () => warm,
        async (error: unknown) => {
          if (this.open && !cancelled) log.warn('the voice detector could not be loaded ahead of a call', String(error));
          await vad.dispose();
          return null;
        },
      ),
    };
    this.kept = kept;
  }

  /**
   * For a call: the kept detector, as a promise because it may still be loading (it
   * resolves to null if it could not load), or null when none is kept: either way a call
   * without one makes its own. `cancel` is for a call that will not take it after all: it
   * stops the load it is still in. Synchronous, so it can run inside a user gesture.
   */
  take(): Handed | null {
    const kept = this.kept;
    this.kept = null;
    this.lent += 1;
    return kept && { ready: kept.ready, cancel: () => void kept.disposeNow() };
  }

  /**
   * A call is over, or is stopping: its detector (if it kept one), or the promise of it, is
   * kept for the next call, or disposed once it is back. `abandon` is the controller the
   * call's stop was given: aborting it stops a load the detector is still in.
   */
  give(warm: WarmVoice | void | Promise<WarmVoice | void>, abandon?: AbortController): void {
    this.lent = Math.max(0, this.lent - 1);
    if (!warm) return;
    const keep = this.open && !this.kept;
    if (!('then' in warm)) {
      if (keep) this.kept = { ready: Promise.resolve(warm), disposeNow: () => warm.dispose() };
      else void warm.dispose();
      return;
    }
    const ready = warm.then(
      (back) => back ?? null,
      () => null,
    );
    // Nothing waits for it to come back: the load stops at once, and the worker goes once back.
    const disposeNow = async () => {
      abandon?.abort(new DOMException('the detector is no longer wanted', 'AbortError'));
      void ready.then((back) => back?.dispose());
    };
    if (keep) this.kept = { ready, disposeNow };
    else void disposeNow();
  }

  /**
   * The session is over: the kept detector is disposed, at once even if still loading,
   * whether it was loaded for the session or is still coming back from a call.
   */
  async release(): Promise<void> {
    this.open = false;
    const kept = this.kept;
    this.kept = null;
    await kept?.disposeNow();
  }
}
