// @vitest-environment node
/**
 * The real model on the real fixture, in Node (onnxruntime-web's Node build runs the same
 * wasm kernels as the browser): the model wrapper and the frame processor together must
 * find exactly the two spoken questions of call-two-questions.wav.
 */
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_SAMPLES } from '../protocol.ts';
import { FrameProcessor, type FrameEvent } from './frameProcessor.ts';
import { SileroLegacy } from './silero.ts';

/**
 * Node built-ins, loaded by a specifier TypeScript does not resolve: this file is part of
 * the DOM program (tsconfig.app.json), which must not get Node's global types.
 */
interface NodeApis {
  readFileSync(path: URL): Uint8Array;
  spawnSync(cmd: string, args: string[], options: { encoding: 'utf8' }): { status: number | null; stderr: string };
  execPath: string;
}
async function nodeApis(): Promise<NodeApis> {
  const load = (name: string) => import(/* @vite-ignore */ name) as Promise<Record<string, unknown>>;
  const [fs, cp, proc] = await Promise.all([load('node:fs'), load('node:child_process'), load('node:process')]);
  return { ...fs, ...cp, execPath: (proc.default as { execPath: string }).execPath } as unknown as NodeApis;
}

const root = new URL('../../../../../', import.meta.url);
const MODEL = new URL('node_modules/@ricky0123/vad-web/dist/silero_vad_legacy.onnx', root);
const FIXTURE = new URL('tests/fixtures/call-two-questions.wav', root);

/** 16-bit mono PCM WAV → floats; finds the data chunk instead of assuming a 44-byte header. */
function parseWav(bytes: Uint8Array): { rate: number; samples: Float32Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rate = view.getUint32(24, true);
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    if (id === 'data') {
      const count = Math.min(size, bytes.length - offset - 8) >> 1;
      const start = offset + 8;
      return { rate, samples: Float32Array.from({ length: count }, (_, i) => view.getInt16(start + 2 * i, true) / 32768) };
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error('WAV without a data chunk');
}

let model: SileroLegacy;
let fixture: Uint8Array;

beforeAll(async () => {
  const node = await nodeApis();
  // Idempotent: rebuilds the WAVs only when their recipe changed (needs espeak-ng + ffmpeg/sox).
  const made = node.spawnSync(node.execPath, [new URL('scripts/make-fixtures.mjs', root).pathname], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make-fixtures failed: ${made.stderr}`);
  fixture = node.readFileSync(FIXTURE);
  ort.env.wasm.numThreads = 1;
  model = await SileroLegacy.create(ort, node.readFileSync(MODEL));
}, 60_000);

afterAll(async () => {
  await model?.release();
});

async function probabilities(samples: Float32Array): Promise<number[]> {
  model.resetState();
  const probs: number[] = [];
  for (let i = 0; i + FRAME_SAMPLES <= samples.length; i += FRAME_SAMPLES) {
    probs.push(await model.process(samples.slice(i, i + FRAME_SAMPLES)));
  }
  return probs;
}

// Generous: the machine running the suite may be busy; inference itself takes ~0.3 s.
describe('SileroLegacy + FrameProcessor on call-two-questions.wav', { timeout: 30_000 }, () => {
  it('finds the two questions and nothing else', async () => {
    const { rate, samples } = parseWav(fixture);
    expect(rate).toBe(16_000);
    const probs = await probabilities(samples);
    expect(probs.every((p) => p >= 0 && p <= 1)).toBe(true);

    const vad = new FrameProcessor();
    const events: FrameEvent[] = [];
    probs.forEach((p, i) => events.push(...vad.process(samples.slice(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES), p)));
    expect(events.map((e) => e.type)).toEqual(['speechStart', 'speechEnd', 'speechStart', 'speechEnd']);

    // Layout: 1 s silence, question 1, 2 s silence, question 2, 3 s silence; 1 frame = 96 ms.
    const [start1, end1, start2, end2] = events;
    if (end1?.type !== 'speechEnd' || end2?.type !== 'speechEnd') throw new Error('expected two speechEnd events');
    const seconds = (frame: number) => (frame * FRAME_SAMPLES) / 16_000;
    expect(start1?.type === 'speechStart' && seconds(start1.frame)).toBeCloseTo(1, 0);
    expect(start2?.type === 'speechStart' && seconds(start2.frame)).toBeGreaterThan(seconds(end1.endFrame));
    // Each segment closes redemption (8 frames) after its question, inside the following silence.
    expect(seconds(end2.endFrame)).toBeLessThan(samples.length / 16_000 - 1.5);
    expect(end1.audio.length).toBe((end1.endFrame - end1.audioStartFrame + 1) * FRAME_SAMPLES);
    expect(end1.audioStartFrame).toBe(start1?.type === 'speechStart' ? Math.max(0, start1.frame - 15) : -1);
  });

  it('stays silent on silence and after a state reset', async () => {
    const probs = await probabilities(new Float32Array(FRAME_SAMPLES * 30));
    expect(Math.max(...probs)).toBeLessThan(0.5);
  });
});
