/**
 * The few platform features the app relies on that older phones lack (iOS Safari before
 * 15.4, older in-app WebViews), each with a fallback built on what they do have. A page
 * outside a secure context (plain HTTP on a LAN) lacks crypto.randomUUID as well.
 */

/** A random (v4) UUID: crypto.randomUUID where present, else one made from crypto.getRandomValues. */
export function randomUUID(): string {
  // eslint-disable-next-line no-restricted-syntax -- the one place that may use it
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** AbortSignal.throwIfAborted, also where it is missing (and where signals carry no reason). */
export function throwIfAborted(signal: AbortSignal | undefined, message = 'aborted'): void {
  if (!signal?.aborted) return;
  throw (signal.reason as unknown) ?? new DOMException(message, 'AbortError');
}

/** The last element of a list (Array.prototype.at(-1), which iOS Safari gained only in 15.4). */
export function lastOf<T>(list: readonly T[]): T | undefined {
  return list[list.length - 1];
}
