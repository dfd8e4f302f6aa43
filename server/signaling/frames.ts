/**
 * Client → server signaling frames (PROTOCOL.md), parsed and validated in one
 * pure function: anything that is not a well-formed frame of a known type
 * becomes a clear error text for `{msg_type:'error'}`, never an exception.
 */
export const MAX_TEXT_CHARS = 100_000;
const MAX_ID_CHARS = 200;

export type ClientFrame =
  | { type: 'offer_2'; roomId: string; deviceId: string | null }
  | { type: 'say_hello'; roomId: string | null; lang: unknown }
  | { type: 'message_text'; roomId: string | null; source: 'nlpmsg' | 'asrcallback'; text: string; msgId: string; lang: unknown; endPoint: boolean }
  | { type: 'break'; roomId: string | null }
  | { type: 'play'; roomId: string | null; msgId: string; state: 'start' | 'end' }
  | { type: 'close_webrtc'; roomId: string | null }
  | { type: 'ping'; roomId: string | null };

export type ParseResult = { ok: true; frame: ClientFrame; json: Record<string, unknown> } | { ok: false; error: string; json?: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string or number id, as a string; null when absent or unusable. */
function id(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ID_CHARS) return null;
  return value;
}

const truncate = (text: string): string => (text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text);

export function parseClientFrame(raw: string): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'not valid JSON' };
  }
  if (!isObject(json)) return { ok: false, error: 'a frame must be a JSON object', json };
  const type = json.type;
  if (typeof type !== 'string') return { ok: false, error: 'a frame needs a string "type"', json };
  const roomId = id(json.room_id);
  const data = isObject(json.data) ? json.data : {};
  const fail = (error: string): ParseResult => ({ ok: false, error: `${type}: ${error}`, json });
  const ok = (frame: ClientFrame): ParseResult => ({ ok: true, frame, json: json as Record<string, unknown> });

  switch (type) {
    case 'offer_2':
      if (typeof json.room_id === 'string' && json.room_id.length > MAX_ID_CHARS) return fail(`room_id too long (max ${MAX_ID_CHARS} characters)`);
      // deviceId (specification: sent on every frame) proves the room is this device's.
      return roomId ? ok({ type, roomId, deviceId: id(json.deviceId) }) : fail('room_id required');
    case 'say_hello':
      return ok({ type, roomId, lang: data.lang });
    case 'message_text': {
      const source = json.source;
      if (source !== 'nlpmsg' && source !== 'asrcallback') return fail('source must be "nlpmsg" or "asrcallback"');
      const msgId = id(data.msg_id);
      if (!msgId) return fail('data.msg_id required');
      if (typeof json.text !== 'string') return fail('text must be a string');
      const text = truncate(json.text).trim();
      if (source === 'nlpmsg' && text === '') return fail('text must not be empty');
      const endPoint = json.end_point === true;
      return ok({ type, roomId, source, text, msgId, lang: data.lang, endPoint });
    }
    case 'break':
    case 'close_webrtc':
      return ok({ type, roomId });
    case 'ping':
      return ok({ type, roomId });
    case 'play': {
      const msgId = id(data.msg_id);
      if (!msgId) return fail('data.msg_id required');
      if (data.state !== 'start' && data.state !== 'end') return fail('data.state must be "start" or "end"');
      return ok({ type, roomId, msgId, state: data.state });
    }
    default:
      return { ok: false, error: `unknown type: ${type.slice(0, 50)}`, json };
  }
}
