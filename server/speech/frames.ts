/**
 * The Speech SDK's WebSocket message framing (WebsocketMessageFormatter in the SDK).
 *
 * Text: header lines `Name: value\r\n`, a blank line, then the body (JSON).
 * Binary: a 2-byte big-endian header length, the same header lines in ASCII, then the
 * payload (audio). An audio frame with no payload marks the end of the audio stream.
 *
 * Pure functions: they throw FrameError on bad input and never touch a socket.
 */

export class FrameError extends Error {
  override name = 'FrameError';
}

/** Header names are lower-cased on parse, as the SDK does, so lookups are case-insensitive. */
export type FrameHeaders = Record<string, string>;

export interface TextFrame {
  kind: 'text';
  path: string;
  requestId: string;
  headers: FrameHeaders;
  body: string;
}

export interface BinaryFrame {
  kind: 'binary';
  path: string;
  requestId: string;
  headers: FrameHeaders;
  payload: Buffer;
}

/** Headers longer than this are not something the SDK sends; refuse them early. */
export const MAX_HEADER_BYTES = 8 * 1024;

const CRLF = '\r\n';

function parseHeaderBlock(block: string): FrameHeaders {
  const headers: FrameHeaders = {};
  for (const line of block.split(CRLF)) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new FrameError(`malformed header line "${line.slice(0, 40)}"`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Every message the SDK sends names its path and request; without them nothing can be answered. */
function required(headers: FrameHeaders): { path: string; requestId: string } {
  const path = headers['path'];
  const requestId = headers['x-requestid'];
  if (!path) throw new FrameError('missing Path header');
  if (!requestId) throw new FrameError('missing X-RequestId header');
  if (!/^[0-9A-Za-z-]{1,64}$/.test(requestId)) throw new FrameError('malformed X-RequestId header');
  return { path, requestId };
}

export function parseTextFrame(text: string): TextFrame {
  const split = text.indexOf(CRLF + CRLF);
  if (split < 0) throw new FrameError('text frame has no blank line after its headers');
  if (split > MAX_HEADER_BYTES) throw new FrameError('text frame headers too long');
  const headers = parseHeaderBlock(text.slice(0, split));
  return { kind: 'text', ...required(headers), headers, body: text.slice(split + 4) };
}

export function parseBinaryFrame(data: Buffer): BinaryFrame {
  if (data.length < 2) throw new FrameError('binary frame shorter than its header length');
  const headerLength = data.readUInt16BE(0);
  if (headerLength === 0) throw new FrameError('binary frame without headers');
  if (headerLength > MAX_HEADER_BYTES) throw new FrameError('binary frame headers too long');
  if (data.length < 2 + headerLength) throw new FrameError('binary frame shorter than its declared headers');
  const headers = parseHeaderBlock(data.toString('latin1', 2, 2 + headerLength));
  return { kind: 'binary', ...required(headers), headers, payload: data.subarray(2 + headerLength) };
}

function headerLines(path: string, requestId: string, extra: FrameHeaders): string {
  const all: FrameHeaders = { Path: path, 'X-RequestId': requestId, 'X-Timestamp': new Date().toISOString(), ...extra };
  return Object.entries(all)
    .map(([name, value]) => `${name}: ${value}${CRLF}`)
    .join('');
}

export function makeTextFrame(path: string, requestId: string, body: string, contentType = 'application/json; charset=utf-8'): string {
  return `${headerLines(path, requestId, { 'Content-Type': contentType })}${CRLF}${body}`;
}

/** The service never sends audio in recognition; this exists for tests that play the client. */
export function makeBinaryFrame(path: string, requestId: string, payload: Buffer, extra: FrameHeaders = {}): Buffer {
  const headers = Buffer.from(headerLines(path, requestId, extra), 'latin1');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(headers.length, 0);
  return Buffer.concat([length, headers, payload]);
}
