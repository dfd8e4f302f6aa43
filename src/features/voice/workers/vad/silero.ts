/**
 * Silero VAD, legacy model (silero_vad_legacy.onnx as shipped by @ricky0123/vad-web 0.0.31).
 *
 * Inputs: input float32 [1, N] (N = 1536 at 16 kHz), sr int64 scalar, h and c float32
 * [2, 1, 64] (LSTM state). Outputs: output [1, 1] (speech probability), hn, cn (next
 * state). The state carries context across frames, so frames must be run in order, one at
 * a time, and reset between unrelated streams.
 *
 * onnxruntime is injected (the worker passes `onnxruntime-web/wasm`, the Node test passes
 * the Node build), so this file never decides which runtime bundle gets loaded.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-web';

/** The part of an onnxruntime module this wrapper needs. */
export interface OrtRuntime {
  InferenceSession: { create(model: Uint8Array, options?: InferenceSession.SessionOptions): Promise<InferenceSession> };
  Tensor: typeof Tensor;
}

const STATE_DIMS = [2, 1, 64] as const;
const STATE_SIZE = 2 * 64;
const SAMPLE_RATE = 16_000n;

export class SileroLegacy {
  private h: Tensor;
  private c: Tensor;
  private readonly sr: Tensor;

  private constructor(
    private readonly ort: OrtRuntime,
    private readonly session: InferenceSession,
  ) {
    this.sr = new ort.Tensor('int64', BigInt64Array.from([SAMPLE_RATE]), []);
    this.h = this.zeroState();
    this.c = this.zeroState();
  }

  static async create(ort: OrtRuntime, model: Uint8Array): Promise<SileroLegacy> {
    const session = await ort.InferenceSession.create(model, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    for (const name of ['input', 'sr', 'h', 'c']) {
      if (!session.inputNames.includes(name)) {
        await session.release();
        throw new Error(`not the Silero legacy model: input "${name}" missing (has ${session.inputNames.join(', ')})`);
      }
    }
    return new SileroLegacy(ort, session);
  }

  /** Speech probability of one frame, in [0, 1]. */
  async process(frame: Float32Array): Promise<number> {
    const input = new this.ort.Tensor('float32', frame, [1, frame.length]);
    const out = await this.session.run({ input, sr: this.sr, h: this.h, c: this.c });
    const { output, hn, cn } = out;
    if (!output || !hn || !cn) throw new Error('Silero model returned no output/hn/cn');
    this.h = hn;
    this.c = cn;
    const p = (output.data as Float32Array)[0];
    return typeof p === 'number' ? p : Number.NaN;
  }

  /** Forgets the LSTM state: the next frame is treated as the start of a new stream. */
  resetState(): void {
    this.h = this.zeroState();
    this.c = this.zeroState();
  }

  async release(): Promise<void> {
    await this.session.release();
  }

  private zeroState(): Tensor {
    return new this.ort.Tensor('float32', new Float32Array(STATE_SIZE), [...STATE_DIMS]);
  }
}
