/**
 * How long the pipeline waits on the VAD worker. Control calls (mute, thresholds) are
 * bounded so a hung worker never holds up the call's loop or Hang up.
 */
import { answers } from '../../../../services/deadline.ts';
import { createLogger } from '../../../../services/logger.ts';

const log = createLogger('voice');

/** How long a control call to the VAD worker may take before the caller goes on without it. */
export const WORKER_CALL_TIMEOUT_MS = 2000;

/**
 * How long a kept detector may take to answer before it is given up for a new one. Longer
 * than a control call's wait: on a busy phone a worker still working through a call's last
 * frames answers late, and a new one (worker, wasm, model) takes far longer than this to
 * load. The capture does not wait on it: frames and the recognizer's audio are already
 * flowing into the call's channel.
 */
export const WARM_ANSWER_TIMEOUT_MS = 6000;

/**
 * A worker call the caller should not wait on forever: a call's loop awaits mute and
 * threshold changes, and a worker that stopped answering must not hold up Hang up.
 */
export async function bounded(call: Promise<unknown>, what: string): Promise<void> {
  if (!(await answers(call, WORKER_CALL_TIMEOUT_MS))) log.warn(`${what}: the VAD worker failed or did not answer within ${WORKER_CALL_TIMEOUT_MS} ms`);
}
