/**
 * Puts the files of the voice pipeline in the HTTP cache (worker and worklet scripts,
 * model, onnxruntime wasm) without starting anything, so a call later starts from cache.
 */
import { CAPTURE_WORKLET_URL } from './capture.client.ts';
import { DEFAULT_MODEL_URL, DEFAULT_WASM_PATHS, VAD_WORKER_URL } from './vad.client.ts';

export const VOICE_ASSET_URLS: readonly string[] = [VAD_WORKER_URL, CAPTURE_WORKLET_URL, DEFAULT_MODEL_URL, DEFAULT_WASM_PATHS.wasm];

async function warm(url: string, fetchImpl: typeof fetch): Promise<void> {
  const response = await fetchImpl(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  // Reading the body is what puts it in the cache.
  await response.arrayBuffer();
}

/** Resolves with the failures (empty when everything is cached); never rejects. */
export async function prefetchVoiceAssets(fetchImpl: typeof fetch = fetch): Promise<string[]> {
  const results = await Promise.allSettled(VOICE_ASSET_URLS.map((url) => warm(url, fetchImpl)));
  return results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
}
