/**
 * The chat message model (docs/requirements.md R35) and the pure rules
 * around it: how a reply's signaling frames become parts, how parts become what
 * the log draws (joined text, one gallery per message), and how text taken from
 * a message is cleaned before it is sent again.
 */
import type { TtsMessage } from '../signaling/protocol.ts';
import { lastOf } from '../../services/compat.ts';

export interface RelatedQuestion {
  content: string;
}

export type ChatPart =
  | { type: 'text'; content: string }
  | { type: 'image'; content: string }
  | { type: 'video'; content: string }
  | { type: 'webPage'; content: string }
  | { type: 'relatedQa'; content: RelatedQuestion[] }
  | { type: 'divider'; content: '' };

export type PartType = ChatPart['type'];

/** The spec's `type`: 'thinking' until a reply's content arrives; 'questionPrompt' for a reply of suggestions only. */
export type MessageKind = 'text' | 'thinking' | 'questionPrompt';

/** The spec's `messageType`: what the message mainly is (its first part's kind; text is spoken, so 'tts'). */
export type MessageType = 'tts' | 'image' | 'video' | 'webPage' | 'relatedQa' | 'divider';

/**
 * Visitor messages: sending → sent (the server's asr echo) or failed (channel closed).
 * Replies: thinking (nlp_ready) → speaking (nlp_running / first part) → done | interrupted (nlp_end or a break).
 */
export type MessageStatus = 'sending' | 'sent' | 'failed' | 'thinking' | 'speaking' | 'done' | 'interrupted';

export interface ChatMessage {
  /** Store key: `me:` or `ai:` plus msgId, so a server can never merge a reply into the visitor's message. */
  key: string;
  msgId: string;
  fromMe: boolean;
  type: MessageKind;
  messageType: MessageType;
  msgArr: ChatPart[];
  status: MessageStatus;
}

/** 1,000 parts in one msg_id must not freeze the page (issue 4); more are dropped. */
export const MAX_PARTS = 1000;
/** All text parts of one message together; longer text is cut (each part is already ≤ 100,000). */
export const MAX_MESSAGE_TEXT = 200_000;
/** The oldest messages go first beyond this, so a day-long session keeps a bounded store. */
export const MAX_MESSAGES = 1000;

export const keyOf = (fromMe: boolean, msgId: string): string => `${fromMe ? 'me' : 'ai'}:${msgId}`;

/** Only absolute http(s) URLs are ever put in an src or href; the parser already drops others, this is the second line. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 8192) return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** One tts frame's fields as parts, in the order the fields are listed in PROTOCOL.md. */
export function partsOfTts(frame: TtsMessage): ChatPart[] {
  const parts: ChatPart[] = [];
  if (frame.text !== undefined && frame.text.trim() !== '') parts.push({ type: 'text', content: frame.text });
  if (isHttpUrl(frame.image_url)) parts.push({ type: 'image', content: frame.image_url });
  if (isHttpUrl(frame.video_url)) parts.push({ type: 'video', content: frame.video_url });
  if (isHttpUrl(frame.web_url)) parts.push({ type: 'webPage', content: frame.web_url });
  const related = (frame.related_qa ?? []).filter((q) => q.trim() !== '').map((q) => ({ content: q.trim() }));
  if (related.length > 0) parts.push({ type: 'relatedQa', content: related });
  return parts;
}

export function messageTypeOf(part: ChatPart | undefined): MessageType {
  if (!part || part.type === 'text') return 'tts';
  return part.type;
}

export function textLength(parts: readonly ChatPart[]): number {
  let total = 0;
  for (const part of parts) if (part.type === 'text') total += part.content.length;
  return total;
}

/** docs/requirements.md R25: a thinking message with fewer than two parts shows three animated dots. */
export function showsThinkingDots(message: Pick<ChatMessage, 'type' | 'msgArr'>): boolean {
  return message.type === 'thinking' && message.msgArr.length < 2;
}

/** docs/requirements.md R66: text taken from a message has its line breaks removed and is trimmed. */
export function cleanTakenText(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, '').trim();
}

/** Chinese and Japanese script and full-width punctuation: written without spaces between sentences. */
const UNSPACED = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

const SPACE = /\s/u;

/**
 * What goes between two consecutive text parts: a space, except around Chinese or Japanese
 * or where either side already has one. Only the two neighbouring characters are read, so
 * joining a 100,000-character text stays as cheap as joining two words.
 */
function separator(before: string, after: string): string {
  if (before === '' || after === '') return '';
  const last = before[before.length - 1]!;
  const first = after[0]!;
  return SPACE.test(last) || SPACE.test(first) || UNSPACED.test(last) || UNSPACED.test(first) ? '' : ' ';
}

/** Two consecutive text parts as one text: a space between them, except around Chinese or Japanese. */
export function joinTexts(before: string, after: string): string {
  return before + separator(before, after) + after;
}

/**
 * Many text parts as one, like repeated joinTexts but in one pass: each boundary is decided
 * by the parts on either side of it, never by rescanning the text joined so far (a reply
 * of 1,000 parts is drawn on every part that arrives).
 */
export function joinAllTexts(texts: readonly string[]): string {
  const pieces: string[] = [];
  let previous = '';
  for (const text of texts) {
    if (text === '') continue;
    pieces.push(separator(previous, text), text);
    previous = text;
  }
  return pieces.join('');
}

/** The visitor's words in a message: its text parts, joined like the log shows them. */
export function messageText(message: Pick<ChatMessage, 'msgArr'>): string {
  return joinAllTexts(message.msgArr.flatMap((p) => (p.type === 'text' ? [p.content] : [])));
}

export interface GalleryImage {
  url: string;
  /** 1-based position in the message's gallery. */
  index: number;
}

/** What the log draws for one message, in order. */
export type Block =
  | { kind: 'text'; key: string; text: string }
  | { kind: 'gallery'; key: string; images: GalleryImage[] }
  | { kind: 'video'; key: string; url: string; partIndex: number }
  | { kind: 'webPage'; key: string; url: string }
  | { kind: 'related'; key: string; questions: string[] }
  | { kind: 'divider'; key: string };

/**
 * What one message draws at most. A hostile or broken server can send 1,000
 * parts for one msg_id; the log stays light whatever arrives. The gallery keeps
 * every image (the viewer swipes through all of them) but shows GALLERY_TILES.
 */
export const DRAW_LIMITS = { blocks: 120, videos: 6, webPages: 6, suggestions: 12 } as const;
export const GALLERY_TILES = 9;

/**
 * Consecutive text parts become one text joined with a space; every image of
 * the message goes into one gallery placed where the first image was.
 * Keys are the index of the block's first part, so blocks keep their identity
 * while parts are appended.
 */
type TextBlock = Extract<Block, { kind: 'text' }>;
type GalleryBlock = Extract<Block, { kind: 'gallery' }>;

export function toBlocks(parts: readonly ChatPart[]): Block[] {
  const blocks: Block[] = [];
  let gallery: GalleryBlock | null = null;
  let text: TextBlock | null = null;
  let videos = 0;
  let pages = 0;
  const asked = new Set<string>();
  const add = (block: Block): boolean => {
    if (blocks.length >= DRAW_LIMITS.blocks) return false;
    blocks.push(block);
    return true;
  };
  /** The parts of each text block, joined once at the end. */
  const texts = new Map<TextBlock, string[]>();
  parts.forEach((part, i) => {
    if (part.type !== 'text') text = null;
    switch (part.type) {
      case 'text':
        if (text) texts.get(text)!.push(part.content);
        else if (add({ kind: 'text', key: `t${i}`, text: '' })) {
          text = lastOf(blocks) as TextBlock;
          texts.set(text, [part.content]);
        }
        break;
      case 'image':
        if (!gallery && add({ kind: 'gallery', key: `g${i}`, images: [] })) gallery = lastOf(blocks) as GalleryBlock;
        gallery?.images.push({ url: part.content, index: gallery.images.length + 1 });
        break;
      case 'video':
        if (videos < DRAW_LIMITS.videos && add({ kind: 'video', key: `v${i}`, url: part.content, partIndex: i })) videos += 1;
        break;
      case 'webPage':
        if (pages < DRAW_LIMITS.webPages && add({ kind: 'webPage', key: `w${i}`, url: part.content })) pages += 1;
        break;
      case 'relatedQa': {
        const questions = part.content.map((q) => q.content).filter((q) => !asked.has(q));
        const room = DRAW_LIMITS.suggestions - asked.size;
        if (questions.length === 0 || room <= 0) break;
        const kept = [...new Set(questions)].slice(0, room);
        if (add({ kind: 'related', key: `r${i}`, questions: kept })) kept.forEach((q) => asked.add(q));
        break;
      }
      case 'divider':
        add({ kind: 'divider', key: `d${i}` });
        break;
    }
  });
  for (const [block, pieces] of texts) block.text = joinAllTexts(pieces);
  return blocks;
}

/** A long text shows this much until the visitor asks for the rest; a surrogate pair is never cut. */
export const TEXT_PREVIEW_CHARS = 1200;
/** Texts up to this long are shown whole. */
export const TEXT_COLLAPSE_CHARS = 1600;

export function textPreview(text: string, max = TEXT_PREVIEW_CHARS): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end).trimEnd()}\u2026`;
}

/** The id of one inline video: message key and part index. */
export const videoKey = (messageKey: string, partIndex: number): string => `${messageKey}#${partIndex}`;
