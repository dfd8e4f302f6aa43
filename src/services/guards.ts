/**
 * Small type guards for data from the network. Nothing that arrives over HTTP
 * or WebSocket is trusted: every adapter checks the shape it reads with these.
 */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A string field, or null when absent or of another type. */
export function stringField(obj: JsonObject, key: string): string | null {
  const value = obj[key];
  return typeof value === 'string' ? value : null;
}

/** Servers send numeric codes as numbers or numeric strings; both are accepted. */
export function numberField(obj: JsonObject, key: string): number | null {
  const value = obj[key];
  if (isFiniteNumber(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

export function objectField(obj: JsonObject, key: string): JsonObject | null {
  const value = obj[key];
  return isObject(value) ? value : null;
}

/**
 * The URL as an absolute http(s) href, or null. Relative URLs resolve against
 * `base` (the page's origin by default), since a same-origin stand-in may return paths.
 */
export function safeHttpUrl(value: unknown, base?: string): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = new URL(value.trim(), base ?? globalThis.location?.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
