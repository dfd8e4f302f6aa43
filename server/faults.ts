/**
 * Fault injection for the local/test environments (docs/contract.md C12).
 * A fault stays set for every later request until DELETE /__standin/faults.
 */
export const FAULT_NAMES = [
  'route-code1',
  'route-error',
  'start-live-error',
  'start-live-down',
  'start-live-slow',
  'stream-never-active',
  'signaling-drop',
  'signaling-down',
  'signaling-quit',
  'media-drop',
  'media-down',
  // Beyond docs/contract.md C12 (server/README.md lists them):
  'start-live-late',
  'start-live-error-empty',
  'userinfo-error',
  'userinfo-flaky',
  'speech-down',
  // SRS's WHEP failures: every offer's connection closed with no HTTP answer (how SRS refuses
  // an offer), and 201 with an answer but no media (SRS playing a stream nobody publishes).
  'whep-refuse',
  'whep-no-media',
  // The greeting is the 25 s store tour: a call can start over it however long its start takes.
  'greeting-long',
  // SRS's API kick of a player (DELETE /api/v1/clients/{id}): the connection is dropped and
  // the browser is told nothing: no RTP, no DTLS alert, no answer to its ICE checks.
  'media-silent',
] as const;

export type FaultName = (typeof FAULT_NAMES)[number];

const active = new Set<FaultName>();
/** Counts the times faults were set or cleared, so a fault with a count of its own can start over. */
let generation = 0;
/** Waiting for the faults to be set or cleared again (a fault that holds an answer until then). */
const waiters = new Set<() => void>();

function changed(): void {
  generation += 1;
  for (const wake of [...waiters]) wake();
  waiters.clear();
}

/** Resolves the next time the faults are set or cleared, or when `signal` aborts (false). */
export function faultsChange(signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      waiters.delete(wake);
      resolve(false);
    };
    const wake = () => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    };
    waiters.add(wake);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function isFaultName(value: unknown): value is FaultName {
  return typeof value === 'string' && (FAULT_NAMES as readonly string[]).includes(value);
}

export function setFaults(names: readonly FaultName[]): void {
  active.clear();
  for (const name of names) active.add(name);
  changed();
}

export function clearFaults(): void {
  active.clear();
  changed();
}

export function hasFault(name: FaultName): boolean {
  return active.has(name);
}

export function activeFaults(): FaultName[] {
  return [...active];
}

export function faultsGeneration(): number {
  return generation;
}
