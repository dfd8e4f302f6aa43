/**
 * Bounded waits. A browser or worker call may never settle (resume() waiting for a gesture,
 * a hung worker, a microphone prompt nobody answers); these give up on it after a time, or
 * when an AbortSignal says the wait is no longer wanted, so a call can always be started,
 * muted or hung up. They never cancel the call they give up on: what arrives late is the
 * caller's to clean up, if it needs to.
 */

/** The wait ran out before the promise settled. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** A value no caller's promise can resolve to, so a late answer is told from any real one. */
const LATE: unique symbol = Symbol('late');

/** `promise`'s outcome, or LATE after `ms`; the timer is cleared either way. */
async function settleWithin<T>(promise: PromiseLike<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Settles as `promise` does, or rejects with a TimeoutError once `ms` have passed. */
export async function withTimeout<T>(promise: PromiseLike<T>, ms: number, message = `no answer in ${ms} ms`): Promise<T> {
  const outcome = await settleWithin(promise, ms);
  if (outcome === LATE) throw new TimeoutError(message);
  return outcome;
}

/**
 * Waits for `promise`, but no longer than `ms`: true when it fulfilled in time, false when
 * the time ran out. A rejection in time still rejects.
 */
export async function waitAtMost(promise: PromiseLike<unknown>, ms: number): Promise<boolean> {
  return (await settleWithin(promise, ms)) !== LATE;
}

/** Whether `promise` fulfilled within `ms`: false when it rejected or was late. Never rejects. */
export function answers(promise: PromiseLike<unknown>, ms: number): Promise<boolean> {
  return waitAtMost(promise, ms).catch(() => false);
}

/**
 * Settles as `promise` does, or rejects with `reason()` as soon as `signal` aborts (at once
 * if it already has); the abort listener is removed either way. Like the waits above, the
 * promise given up on goes on: what it brings later is the caller's to dispose of.
 */
export async function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal, reason: () => unknown): Promise<T> {
  if (signal.aborted) throw reason();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
