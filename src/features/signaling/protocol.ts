/**
 * The signaling protocol of PROTOCOL.md at the client's boundary: every frame
 * from the server is parsed and checked here before anything else sees it, and
 * every frame to the server is typed here. Field names follow the wire.
 */
import type { Lang } from '../locale/localeSlice.ts';

export const COMMAND_WORDS = ['asr_running', 'asr_ready', 'asr_end', 'nlp_ready', 'nlp_running', 'nlp_end'] as const;
export type CommandWord = (typeof COMMAND_WORDS)[number];

export type CommandMessage = { msg_type: 'command'; command: CommandWord; msg_id?: string; text?: string; interrupted?: boolean };
export type AsrMessage = { msg_type: 'asr'; msg_id: string; text: string };
export type TtsMessage = {
  msg_type: 'tts';
  msg_id: string;
  text?: string;
  image_url?: string;
  video_url?: string;
  web_url?: string;
  related_qa?: string[];
};
export type QuitMessage = { msg_type: 'quit'; text?: string };
export type ErrorMessage = { msg_type: 'error'; text: string };
/** PROTOCOL.md, *Heartbeat* (an extension): the answer to the client's `ping`. */
export type PongMessage = { msg_type: 'pong' };

/** A validated, serializable server frame. */
export type ServerMessage = CommandMessage | AsrMessage | TtsMessage | QuitMessage | ErrorMessage | PongMessage;

/** Frames the other features ask the signaling saga to send (room_id, app_id and deviceId are added by it). */
export type ClientRequest =
  | {
      type: 'message_text';
      source: 'nlpmsg' | 'asrcallback';
      text: string;
      data: { msg_id: string; lang: Lang };
      end_point?: boolean;
    }
  | { type: 'break' }
  | { type: 'play'; data: { msg_id: string; state: 'start' | 'end' } };

/** Frames only the session's own sagas send (`ping`: PROTOCOL.md, *Heartbeat*, an extension). */
export type SessionFrame = { type: 'offer_2' } | { type: 'say_hello'; data: { lang: Lang } } | { type: 'close_webrtc' } | { type: 'ping' };

export interface FrameIdentity {
  room_id: string;
  app_id: string;
  deviceId: string;
}

export function encodeClientFrame(frame: ClientRequest | SessionFrame, identity: FrameIdentity): string {
  return JSON.stringify({ ...frame, ...identity });
}

/** A frame larger than this is not even parsed. */
export const MAX_FRAME_CHARS = 1_000_000;
/** PROTOCOL.md: longer text fields are truncated by the receiver. */
export const MAX_TEXT_CHARS = 100_000;
const MAX_ID_CHARS = 256;
const MAX_URL_CHARS = 8192;
const MAX_RELATED = 20;

/**
 * One frame can carry several messages: a command word rides on whatever frame the
 * server sends it in (PROTOCOL.md, *Reading a frame*), and a frame with a command and
 * content is both.
 */
export type ParseResult = { ok: true; messages: ServerMessage[]; notes: string[] } | { ok: false; reason: string };

type Obj = Record<string, unknown>;

function text(value: string): string {
  return value.length > MAX_TEXT_CHARS ? value.slice(0, MAX_TEXT_CHARS) : value;
}

function id(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' && value.length <= MAX_ID_CHARS ? value : null;
}

/** Only absolute http(s) URLs are let through; anything else (javascript:, data:, relative) is dropped. */
function httpUrl(value: string): string | null {
  if (value.length > MAX_URL_CHARS) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/** Copies the optional fields that are present and well-typed; notes every one that is not. */
function optionalText(obj: Obj, key: string, notes: string[]): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    notes.push(`${key}: not a string`);
    return undefined;
  }
  if (value.length > MAX_TEXT_CHARS) notes.push(`${key}: truncated`);
  return text(value);
}

function optionalUrl(obj: Obj, key: string, notes: string[]): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null || value === '') return undefined;
  const url = typeof value === 'string' ? httpUrl(value) : null;
  if (url === null) notes.push(`${key}: dropped (not an http(s) URL)`);
  return url ?? undefined;
}

function relatedQa(obj: Obj, notes: string[]): string[] | undefined {
  const value = obj.related_qa;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    notes.push('related_qa: not an array');
    return undefined;
  }
  const items = value.filter((q): q is string => typeof q === 'string' && q.trim() !== '').slice(0, MAX_RELATED).map(text);
  if (items.length !== value.length) notes.push('related_qa: some entries dropped');
  return items.length > 0 ? items : undefined;
}

/** Puts only defined values, so the message stays plain and comparable. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Commands that open something come before the content of their frame; those that end it, after. */
const ENDING_COMMANDS: readonly CommandWord[] = ['asr_end', 'nlp_end'];

function optionalId(obj: Obj, notes: string[]): string | undefined {
  if (obj.msg_id === undefined || obj.msg_id === null) return undefined;
  const msgId = id(obj.msg_id);
  if (msgId === null) notes.push('msg_id: invalid');
  return msgId ?? undefined;
}

/**
 * The command word of a frame, whatever its msg_type: the specification lists `command`
 * among the received fields without naming a message type for it, so a back end may send
 * it alone, or on an asr, tts or quit frame. `undefined`: the frame names no command.
 */
function commandOf(obj: Obj, frameText: string | undefined, notes: string[]): CommandMessage | 'unknown' | undefined {
  const command = obj.command;
  if (command === undefined || command === null) return undefined;
  if (!(COMMAND_WORDS as readonly unknown[]).includes(command)) return 'unknown';
  return compact({
    msg_type: 'command' as const,
    command: command as CommandWord,
    msg_id: optionalId(obj, notes),
    text: frameText,
    interrupted: obj.interrupted === true ? true : undefined,
  });
}

type Content = { message: ServerMessage } | { reason: string } | null;

/** The content a frame carries beside any command; null when its msg_type carries none. */
function contentOf(obj: Obj, frameText: string | undefined, notes: string[], withCommand: boolean): Content {
  switch (obj.msg_type) {
    case 'asr': {
      const msgId = id(obj.msg_id);
      if (msgId === null || typeof obj.text !== 'string') return withCommand ? null : { reason: 'asr: msg_id and text required' };
      return { message: { msg_type: 'asr', msg_id: msgId, text: text(obj.text) } };
    }
    case 'tts': {
      const hasContent = ['text', 'image_url', 'video_url', 'web_url', 'related_qa'].some((key) =>
        key === 'text' ? typeof obj.text === 'string' && (obj.text !== '' || !withCommand) : obj[key] !== undefined && obj[key] !== null,
      );
      if (withCommand && !hasContent) return null;
      const msgId = id(obj.msg_id);
      if (msgId === null) return { reason: 'tts: msg_id required' };
      const parts = notes.length;
      const message: TtsMessage = compact({
        msg_type: 'tts' as const,
        msg_id: msgId,
        text: frameText,
        image_url: optionalUrl(obj, 'image_url', notes),
        video_url: optionalUrl(obj, 'video_url', notes),
        web_url: optionalUrl(obj, 'web_url', notes),
        related_qa: relatedQa(obj, notes),
      });
      if (Object.keys(message).length === 2) return { reason: `tts: no usable content (${notes.slice(parts).join('; ')})` };
      return { message };
    }
    case 'quit':
      return { message: compact({ msg_type: 'quit' as const, text: frameText }) };
    case 'error':
      return { message: { msg_type: 'error', text: frameText ?? '' } };
    case 'pong':
      return { message: { msg_type: 'pong' } };
    case 'command':
    case undefined:
    case null:
      return null;
    default:
      return { reason: `unknown msg_type ${JSON.stringify(obj.msg_type)?.slice(0, 40) ?? 'undefined'}` };
  }
}

function parseObject(obj: Obj): ParseResult {
  const notes: string[] = [];
  const frameText = optionalText(obj, 'text', notes);
  // On a frame that carries content (asr, tts, quit, error) the text is that content's.
  const carriesContent = ['asr', 'tts', 'quit', 'error'].includes(obj.msg_type as string);
  const command = commandOf(obj, carriesContent ? undefined : frameText, notes);
  const known = command !== undefined && command !== 'unknown' ? command : undefined;
  const content = contentOf(obj, frameText, notes, known !== undefined);
  const reasons: string[] = [];
  if (command === 'unknown') reasons.push(`unknown command ${String(obj.command).slice(0, 40)}`);
  if (content && 'reason' in content) reasons.push(content.reason);
  else if (!content && !known) reasons.push(obj.msg_type === undefined || obj.msg_type === null ? 'no msg_type and no command' : 'command: missing');
  const body = content && 'message' in content ? content.message : undefined;
  if (!known && !body) return { ok: false, reason: reasons.join('; ') };
  notes.push(...reasons);
  let messages: ServerMessage[];
  if (!known) messages = [body!];
  else if (!body) messages = [known];
  // A quit ends the session, so whatever else its frame says comes first.
  else if (body.msg_type === 'quit') messages = [known, body];
  else messages = ENDING_COMMANDS.includes(known.command) ? [body, known] : [known, body];
  return { ok: true, messages, notes };
}

/** Parses one WebSocket text frame. Never throws. */
export function parseServerFrame(raw: unknown): ParseResult {
  if (typeof raw !== 'string') return { ok: false, reason: 'not a text frame' };
  if (raw.length > MAX_FRAME_CHARS) return { ok: false, reason: `frame too large (${raw.length} chars)` };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not an object' };
  return parseObject(value as Obj);
}
