/**
 * A reply is a list of parts, each becoming one `tts` frame (PROTOCOL.md):
 * text is spoken sentence by sentence, media parts are sent at their place.
 */
import type { AnswerPart, KbLang, KnowledgeEntry } from './knowledge.ts';
import { toTraditional } from './traditional.ts';

export type ReplyPart =
  | { text: string }
  | { image_url: string }
  | { video_url: string }
  | { web_url: string }
  | { related_qa: string[] };

/** Asset paths in the knowledge base are origin-relative; the client needs absolute URLs. */
export function toReplyParts(parts: readonly AnswerPart[], httpOrigin: string): ReplyPart[] {
  return parts.map((part): ReplyPart => {
    if ('text' in part) return { text: part.text };
    if ('image' in part) return { image_url: new URL(part.image, httpOrigin).href };
    if ('video' in part) return { video_url: new URL(part.video, httpOrigin).href };
    if ('web' in part) return { web_url: new URL(part.web, httpOrigin).href };
    return { related_qa: [...part.related] };
  });
}

export function entryReply(entry: KnowledgeEntry, lang: KbLang, httpOrigin: string): ReplyPart[] {
  const parts = lang === 'cht' ? entry.answer.zh.map(traditionalPart) : entry.answer[lang];
  return toReplyParts(parts, httpOrigin);
}

/** Words in traditional characters (text and suggested questions); media paths as they are. */
function traditionalPart(part: AnswerPart): AnswerPart {
  if ('text' in part) return { text: toTraditional(part.text) };
  if ('related' in part) return { related: part.related.map(toTraditional) };
  return part;
}

/**
 * Sentences, so each can be sent when the avatar starts to speak it.
 * Splits after . ! ? (followed by a space) and after Chinese 。！？.
 */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？])/u)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const HAN = /\p{Script=Han}/u;

/** The voice for a free text: Chinese characters (simplified or traditional) mean the Chinese voice. */
export function speechLang(text: string, fallback: KbLang): 'en' | 'zh' {
  if (HAN.test(text)) return 'zh';
  if (/[A-Za-z]/.test(text)) return 'en';
  return fallback === 'en' ? 'en' : 'zh';
}

export class ReplyValidationError extends Error {}

const MAX_TEXT = 2_000;
const MAX_RELATED = 10;

function httpUrl(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new ReplyValidationError(`${field} must be a string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ReplyValidationError(`${field} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ReplyValidationError(`${field} must be an http(s) URL`);
  return url.href;
}

/**
 * Validates a body of POST /__standin/say: {text?, image_url?, video_url?,
 * web_url?, related?: string[]} and returns its parts in that order.
 */
export function customReply(body: Record<string, unknown>): ReplyPart[] {
  const parts: ReplyPart[] = [];
  if (body.text !== undefined) {
    if (typeof body.text !== 'string' || body.text.trim() === '') throw new ReplyValidationError('text must be a non-empty string');
    if (body.text.length > MAX_TEXT) throw new ReplyValidationError(`text too long (max ${MAX_TEXT} characters)`);
    parts.push({ text: body.text.trim() });
  }
  if (body.image_url !== undefined) parts.push({ image_url: httpUrl(body.image_url, 'image_url') });
  if (body.video_url !== undefined) parts.push({ video_url: httpUrl(body.video_url, 'video_url') });
  if (body.web_url !== undefined) parts.push({ web_url: httpUrl(body.web_url, 'web_url') });
  if (body.related !== undefined) {
    const related = body.related;
    if (!Array.isArray(related) || related.length > MAX_RELATED || !related.every((q) => typeof q === 'string' && q.trim() !== '')) {
      throw new ReplyValidationError(`related must be an array of at most ${MAX_RELATED} non-empty strings`);
    }
    parts.push({ related_qa: related.map((q: string) => q.trim().slice(0, 500)) });
  }
  if (parts.length === 0) throw new ReplyValidationError('give at least one of text, image_url, video_url, web_url, related');
  return parts;
}
