/**
 * Keeps secrets and audio out of the session log. A log file goes into tickets
 * and mail, so nothing in it may be usable against the account:
 *
 * - fields named like a key or a token (app_key, appKey, subscriptionKey,
 *   token, accessToken, authorization, password, credential, ...) → '[redacted]';
 *   their values are also learnt and replaced wherever else they appear;
 * - query parameters with such names inside any string (URLs), and
 *   `Bearer ...` → '[redacted]';
 * - binary data anywhere, and `audio` / `pcm` fields → '[binary N bytes]' /
 *   '[audio N ...]' so the size is still visible.
 *
 * Copy-on-write: an unchanged value comes back as the same reference, so the
 * common action costs a walk and no allocation.
 */
export const REDACTED = '[redacted]';

const SECRET_FIELD =
  /^(?:app_?key|api_?key|subscription_?key|speech_?key|ocp-apim-subscription-key|x-api-key|auth|authorization|password|passwd|secret|client_?secret|credential|cookie|set-cookie|.*token)$/i;
const AUDIO_FIELD = /^(?:audio|pcm)(?:_?(?:data|buffer|chunk|frames?|samples))?$/i;
const QUERY_SECRET = /((?:^|[?&;#\s])([\w.-]*(?:key|token|auth|secret|sig|signature|password|credential)[\w.-]*)=)[^&#\s"'<>]*/gi;
const BEARER = /\b(Bearer|Basic)\s+[\w\-.~+/]+=*/g;

/** Values shorter than this are not learnt: replacing them everywhere would shred ordinary text. */
const MIN_SECRET_LENGTH = 6;
const MAX_DEPTH = 24;

export interface Redactor {
  redact(value: unknown): unknown;
  /** Replaces learnt secrets in an already serialized text: the last safety net before a file leaves. */
  scrubText(text: string): string;
  learn(secret: string): void;
}

function binaryLength(value: unknown): number | null {
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer) return value.byteLength;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof Blob !== 'undefined' && value instanceof Blob) return value.size;
  return null;
}

function audioMarker(value: unknown): string | null {
  const bytes = binaryLength(value);
  if (bytes !== null) return `[binary ${bytes} bytes]`;
  if (typeof value === 'string') return `[audio ${value.length} chars]`;
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return `[audio ${value.length} samples]`;
  // Booleans, numbers and objects (e.g. `audio: { muted }`) are state, not audio.
  return null;
}

export function createRedactor(): Redactor {
  const secrets = new Set<string>();

  const learn = (secret: string) => {
    if (secret.length >= MIN_SECRET_LENGTH && secret !== REDACTED) secrets.add(secret);
  };

  const scrubString = (text: string): string => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // Cheap pre-checks: most strings have neither '=' nor a space.
    if (out.includes('=')) out = out.replace(QUERY_SECRET, `$1${REDACTED}`);
    if (out.includes(' ')) out = out.replace(BEARER, `$1 ${REDACTED}`);
    return out;
  };

  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return scrubString(value);
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'function') return '[function]';
      if (typeof value === 'bigint') return value.toString();
      return value;
    }
    const bytes = binaryLength(value);
    if (bytes !== null) return `[binary ${bytes} bytes]`;
    if (depth >= MAX_DEPTH) return '[too deep]';
    if (value instanceof Error) return { name: value.name, message: scrubString(value.message) };
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const next = walk(value[i], depth + 1);
        if (next !== value[i]) (copy ??= value.slice())[i] = next;
      }
      return copy ?? value;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return `[${(value as object).constructor?.name ?? 'object'}]`;
    let copy: Record<string, unknown> | null = null;
    const source = value as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      const field = source[key];
      let next: unknown;
      if (SECRET_FIELD.test(key) && field !== null && field !== undefined && typeof field !== 'boolean') {
        if (typeof field === 'string') learn(field);
        next = REDACTED;
      } else if (AUDIO_FIELD.test(key)) {
        next = audioMarker(field) ?? walk(field, depth + 1);
      } else {
        next = walk(field, depth + 1);
      }
      if (next !== field) (copy ??= { ...source })[key] = next;
    }
    return copy ?? value;
  };

  return {
    redact: (value) => walk(value, 0),
    scrubText: (text) => {
      let out = text;
      for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
      return out;
    },
    learn,
  };
}
