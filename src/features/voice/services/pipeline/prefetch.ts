/** Loading what a call needs before the visitor starts one. */
import { prefetchVoiceAssets } from '../../workers/prefetch.ts';
import { createLogger } from '../../../../services/logger.ts';
import { loadSpeechSdk } from '../speechRecognizer.ts';
import { messageOf } from './types.ts';

const log = createLogger('voice');

let prefetching: Promise<void> | null = null;

/**
 * Warms what a call needs while the session connects, without creating any audio object
 * (no permission prompt, no AudioContext): the Speech SDK chunk, the worker and worklet
 * scripts, the model and the onnxruntime wasm. Never rejects; runs once per page unless
 * something failed (then the next call retries).
 */
export function prefetchVoice(): Promise<void> {
  prefetching ??= Promise.all([
    loadSpeechSdk().then(
      () => [],
      (err: unknown) => [`speech SDK: ${messageOf(err)}`],
    ),
    prefetchVoiceAssets(),
  ]).then(([sdk, assets]) => {
    const failures = [...sdk, ...assets];
    if (failures.length === 0) return;
    prefetching = null;
    log.warn('voice prefetch incomplete', failures);
  });
  return prefetching;
}
