import { describe, expect, it, vi } from 'vitest';
import { VOICE_ASSET_URLS, prefetchVoiceAssets } from './prefetch.ts';

describe('prefetchVoiceAssets', () => {
  it('fetches and reads the worker, worklet, model and wasm', async () => {
    const read = vi.fn(async () => new ArrayBuffer(1));
    const fetchImpl = vi.fn(async (_url: string | URL | Request) => ({ ok: true, status: 200, arrayBuffer: read }) as unknown as Response);
    await expect(prefetchVoiceAssets(fetchImpl)).resolves.toEqual([]);
    expect(fetchImpl.mock.calls.map(([url]) => url)).toEqual(VOICE_ASSET_URLS);
    expect(VOICE_ASSET_URLS).toEqual([
      expect.stringContaining('vad.worker'),
      expect.stringContaining('capture.worklet'),
      expect.stringMatching(/silero_vad_legacy(-[\w-]+)?\.onnx$/),
      expect.stringContaining('ort-wasm-simd-threaded'),
    ]);
    expect(read).toHaveBeenCalledTimes(4);
  });

  it('reports failures instead of rejecting', async () => {
    const fetchImpl = vi.fn(async (url: string | URL | Request) => {
      if (String(url).endsWith('.onnx')) return { ok: false, status: 404 } as Response;
      if (String(url).includes('wasm')) throw new TypeError('offline');
      return { ok: true, status: 200, arrayBuffer: async () => new ArrayBuffer(0) } as unknown as Response;
    });
    const failures = await prefetchVoiceAssets(fetchImpl);
    expect(failures).toEqual([expect.stringContaining('HTTP 404'), expect.stringContaining('offline')]);
  });
});
