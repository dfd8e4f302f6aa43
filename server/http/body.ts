/**
 * Request bodies: read with a hard size limit, then parse as JSON, form or SDP.
 * Every failure is an HttpError so the router can answer it with a clear status
 * instead of letting bad input from the network reach a handler.
 */
import type { IncomingMessage } from 'node:http';

export const LIMITS = {
  json: 64 * 1024,
  form: 64 * 1024,
  sdp: 128 * 1024,
} as const;

export type BodyKind = 'none' | 'json' | 'form' | 'sdp';

/** An error with the HTTP status to answer; `body` replaces the default `{code:-1,msg}` JSON. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * Reads the whole body, refusing (413) as soon as it grows past `limit` bytes.
 * On overflow the rest is read and discarded rather than destroying the
 * request, so the 413 still reaches a client that is mid-upload.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new HttpError(413, `body too large (limit ${limit} bytes)`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      cleanup();
      chunks.length = 0;
      req.resume();
      reject(new HttpError(413, `body too large (limit ${limit} bytes)`));
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new HttpError(400, `could not read the body: ${err.message}`));
    };
    const onAborted = (): void => {
      cleanup();
      reject(new HttpError(400, 'the client went away while sending the body'));
    };
    function cleanup(): void {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function parseJsonBody(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8').trim();
  if (text === '') throw new HttpError(400, 'malformed JSON: empty body');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `malformed JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'malformed JSON: expected an object');
  }
  return value as Record<string, unknown>;
}

/**
 * The user service takes form-encoded fields; a JSON body is accepted too
 * because a hand-written client or curl call often sends one.
 */
export function parseFormBody(raw: Buffer, contentType: string): Record<string, unknown> {
  if (contentType === 'application/json') return parseJsonBody(raw);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw.toString('utf8'))) fields[key] = value;
  return fields;
}

export function parseSdpBody(raw: Buffer): string {
  const text = raw.toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'empty SDP offer');
  if (!text.startsWith('v=0')) throw new HttpError(400, 'not an SDP offer: it must start with "v=0"');
  return text;
}

/** Reads and parses the body of `req` as `kind`. */
export async function parseBody(req: IncomingMessage, kind: BodyKind): Promise<unknown> {
  if (kind === 'none') return undefined;
  const raw = await readBody(req, LIMITS[kind]);
  switch (kind) {
    case 'json':
      return parseJsonBody(raw);
    case 'form':
      return parseFormBody(raw, mediaType(req));
    case 'sdp':
      return parseSdpBody(raw);
  }
}

/** A required, non-empty string field of a parsed body, trimmed; 400 when missing. */
export function requireString(body: Record<string, unknown>, field: string, max = 200): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw new HttpError(400, `${field} required`);
  if (value.length > max) throw new HttpError(400, `${field} too long (max ${max} characters)`);
  return value.trim();
}
