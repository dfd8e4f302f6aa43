/**
 * The hand-over of a voice detector kept from an earlier call: it is awaited (it may still
 * be loading) and reset for this call (which then gives it a frame port), or given up for a
 * new one when it does not answer.
 */
import type { CreateVadOptions, VadClient } from '../../workers/vad.client.ts';
import { DEFAULT_FRAME_PROCESSOR_OPTIONS } from '../../workers/vad/frameProcessor.ts';
import { answers, untilAborted } from '../../../../services/deadline.ts';
import { createLogger } from '../../../../services/logger.ts';
import type { WarmVoice } from './types.ts';
import { WARM_ANSWER_TIMEOUT_MS } from './workerCalls.ts';

const log = createLogger('voice');

/**
 * Takes over a VAD handed to the call (loaded or still loading) and makes it fit for this
 * call; null when there is none fit to use (it could not load, or its worker does not
 * answer: then it is disposed), and the call makes its own. An abort stops the wait at
 * once, and `cancel` the load it is still in; a VAD that arrives anyway is disposed.
 */
export async function takeWarm(
  handed: WarmVoice | Promise<WarmVoice | null>,
  vadOptions: CreateVadOptions | undefined,
  signal: AbortSignal,
  cancel?: () => void,
): Promise<VadClient | null> {
  const arrived = Promise.resolve(handed).catch(() => null);
  const late = () => refuseWarm(arrived, cancel);
  if (signal.aborted) {
    late();
    throw signal.reason;
  }
  const warm = await untilAborted(arrived, signal, () => signal.reason).catch((error: unknown) => {
    late();
    throw error;
  });
  if (!warm) return null;
  const restored = restoreWarm(warm.vad, vadOptions);
  if (await answers(restored, WARM_ANSWER_TIMEOUT_MS)) return warm.vad;
  const why = await Promise.race([
    restored.then(
      () => 'it answered late',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    ),
    Promise.resolve(`no answer within ${WARM_ANSWER_TIMEOUT_MS} ms`),
  ]);
  log.warn(`the kept voice detector could not be used (${why}): a new one is loaded`);
  await warm.dispose();
  return null;
}

/** A VAD handed over that the call will not take: its load stops, and one that arrives anyway is disposed. */
export function refuseWarm(handed: WarmVoice | Promise<WarmVoice | null>, cancel: (() => void) | undefined): void {
  cancel?.();
  void Promise.resolve(handed).then(
    (warm) => warm?.dispose(),
    () => {},
  );
}

/** A warm VAD may carry raised thresholds or an open segment from the last call. */
async function restoreWarm(vad: VadClient, vadOptions: CreateVadOptions | undefined): Promise<void> {
  const { positiveSpeechThreshold, negativeSpeechThreshold } = DEFAULT_FRAME_PROCESSOR_OPTIONS;
  await vad.reset();
  await vad.setPaused(false);
  await vad.setThresholds({ positiveSpeechThreshold, negativeSpeechThreshold, ...vadOptions?.thresholds });
}
