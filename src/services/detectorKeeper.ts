/**
 * Keeps one voice detector (the VAD worker with onnxruntime and the Silero model loaded)
 * for the calls of a live session.
 *
 * Why: loading it costs a few seconds of CPU on a slow phone (most of it compiling the
 * 14 MB onnxruntime wasm and creating the session), and a call cannot start before it is
 * ready. Loaded in the background once the session is live, and handed from call to call,
 * it lets Start call open the call as soon as the microphone is open. It costs one idle
 * worker's memory for the session; release() frees it when the session ends.
 *
 * At most one detector is kept. One that comes back while another is kept, or after
 * release(), is disposed.
 */
import type { VadClient } from '../workers/vad.client.ts';
import { createLogger } from './logger.ts';
import type { WarmVoice } from './voicePipeline.ts';

const log = createLogger('voice');

interface Kept {
  vad: VadClient;
  /** Resolves once loaded; null if it could not load (it is disposed then). */
  ready: Promise<WarmVoice | null>;
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
    const kept: Kept = {
      vad,
      ready: vad.ready.then(
        () => warm,
        async (error: unknown) => {
          if (this.open) log.warn('the voice detector could not be loaded ahead of a call', String(error));
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
   * without one makes its own. Synchronous, so it can run inside a user gesture.
   */
  take(): Promise<WarmVoice | null> | null {
    const kept = this.kept;
    this.kept = null;
    this.lent += 1;
    return kept?.ready ?? null;
  }

  /** A call is over: its detector (if it kept one) is kept for the next call, or disposed. */
  give(warm: WarmVoice | void): void {
    this.lent = Math.max(0, this.lent - 1);
    if (!warm) return;
    if (this.open && !this.kept) this.kept = { vad: warm.vad, ready: Promise.resolve(warm) };
    else void warm.dispose();
  }

  /** The session is over: the kept detector is disposed, at once even if still loading. */
  async release(): Promise<void> {
    this.open = false;
    const kept = this.kept;
    this.kept = null;
    await kept?.vad.dispose();
  }
}
