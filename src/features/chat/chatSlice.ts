/**
 * The chat log's state: messages in arrival order, the resend affordances and
 * which inline video plays. Signaling frames come in as the validated
 * `signaling/messageReceived`; the chat saga adds the visitor's own messages.
 */
import { createSlice, isDraft, original, type Draft as ImmerDraft, type PayloadAction } from '@reduxjs/toolkit';
import { sessionEnded } from '../session/sessionSlice.ts';
import type { ServerMessage, TtsMessage } from '../signaling/protocol.ts';
import { messageReceived, sendFailed, sendRequested } from '../signaling/signalingActions.ts';
import {
  keyOf,
  MAX_MESSAGE_TEXT,
  MAX_MESSAGES,
  MAX_PARTS,
  messageTypeOf,
  partsOfTts,
  textLength,
  type ChatMessage,
  type ChatPart,
} from './model.ts';

export interface ChatState {
  /**
   * In arrival order. An array, not an id→message record: each change copies
   * the container, and copying a 1,000-key record per frame made a long log
   * crawl, while an array copies in microseconds.
   */
  messages: ChatMessage[];
  /** The visitor message whose Resend popover is open. */
  resendOpenFor: string | null;
  /** The last visitor message after a long press: a click re-sends it. */
  repeatable: string | null;
  /** videoKey of the inline video playing now; every other one pauses. */
  playingVideo: string | null;
}

export const initialChatState: ChatState = { messages: [], resendOpenFor: null, repeatable: null, playingVideo: null };

type Draft = ChatState;

/**
 * The value before this action, for reading many items: reading through the
 * draft makes a proxy per item touched.
 */
function base<T>(value: T): T {
  return isDraft(value) ? (original(value as ImmerDraft<T>) as T) : value;
}

/**
 * Newest first: frames almost always belong to the last message or two.
 * Reads the list as it was before this action, so every reducer looks up
 * before it adds or removes anything (they all do).
 */
function find(state: Draft, key: string): ChatMessage | undefined {
  const list = base(state.messages);
  for (let i = list.length - 1; i >= 0; i -= 1) if (list[i]!.key === key) return state.messages[i];
  return undefined;
}

/** Adds a message and returns it (the plain object, writable within this action). */
function addMessage(state: Draft, message: ChatMessage): ChatMessage {
  state.messages.push(message);
  const excess = state.messages.length - MAX_MESSAGES;
  if (excess > 0) state.messages.splice(0, excess);
  return message;
}

function lastVisitorKey(state: Draft): string | null {
  const list = base(state.messages);
  for (let i = list.length - 1; i >= 0; i -= 1) if (list[i]!.fromMe) return list[i]!.key;
  return null;
}

function replyFor(state: Draft, msgId: string): ChatMessage {
  const key = keyOf(false, msgId);
  return (
    find(state, key) ??
    addMessage(state, { key, msgId, fromMe: false, type: 'thinking', messageType: 'tts', msgArr: [], status: 'thinking' })
  );
}

function appendParts(state: Draft, frame: TtsMessage): void {
  const reply = replyFor(state, frame.msg_id);
  // The avatar stopped: words still in flight would no longer match what was said.
  if (reply.status === 'interrupted') return;
  const before = base(reply.msgArr);
  const had = before.length;
  const onlySuggestions = before.every((p) => p.type === 'relatedQa');
  let room = MAX_MESSAGE_TEXT - textLength(before);
  const added: ChatPart[] = [];
  for (const part of partsOfTts(frame)) {
    if (had + added.length >= MAX_PARTS) break;
    if (part.type === 'text') {
      if (room <= 0) continue;
      if (part.content.length > room) part.content = part.content.slice(0, room);
      room -= part.content.length;
    }
    added.push(part);
  }
  if (added.length === 0) return;
  reply.msgArr.push(...added);
  const kind = onlySuggestions && added.every((p) => p.type === 'relatedQa') ? 'questionPrompt' : 'text';
  // docs/requirements.md R25: a 'thinking' message with fewer than two parts shows three dots. A reply
  // in progress stays 'thinking' until its second part comes, or it ends (settleType).
  const inProgress = reply.status === 'thinking' || reply.status === 'speaking';
  reply.type = inProgress && reply.msgArr.length < 2 ? 'thinking' : kind;
  if (had === 0) reply.messageType = messageTypeOf(added[0]);
  if (reply.status === 'thinking') reply.status = 'speaking';
}

/** A reply that ended (done or interrupted) with a part or more is no longer thinking. */
function settleType(reply: ChatMessage): void {
  if (reply.type !== 'thinking' || reply.msgArr.length === 0) return;
  reply.type = reply.msgArr.every((p) => p.type === 'relatedQa') ? 'questionPrompt' : 'text';
}

function interruptReplies(state: Draft): void {
  base(state.messages).forEach((message, i) => {
    if (!message.fromMe && (message.status === 'thinking' || message.status === 'speaking')) {
      state.messages[i]!.status = 'interrupted';
      settleType(state.messages[i]!);
    }
  });
}

function receive(state: Draft, message: ServerMessage): void {
  switch (message.msg_type) {
    case 'asr': {
      if (message.text.trim() === '') return;
      const own = find(state, keyOf(true, message.msg_id));
      // Our own typed message echoed back: it reached the server. Keep the visitor's spelling.
      if (own) own.status = 'sent';
      else
        addMessage(state, {
          key: keyOf(true, message.msg_id),
          msgId: message.msg_id,
          fromMe: true,
          type: 'text',
          messageType: 'tts',
          msgArr: [{ type: 'text', content: message.text }],
          status: 'sent',
        });
      state.repeatable = null;
      return;
    }
    case 'tts':
      appendParts(state, message);
      return;
    case 'command': {
      if (message.msg_id === undefined) return;
      // A reply that ends before anything of it came (not even nlp_ready) is still shown:
      // "no content generated" (AssistantMessage). One cut short by a break is not news.
      const shown = message.command === 'nlp_ready' || (message.command === 'nlp_end' && !message.interrupted);
      const reply = shown ? replyFor(state, message.msg_id) : find(state, keyOf(false, message.msg_id));
      if (!reply) return;
      if (message.command === 'nlp_running' && reply.status === 'thinking') reply.status = 'speaking';
      if (message.command === 'nlp_end' && reply.status !== 'interrupted') reply.status = message.interrupted ? 'interrupted' : 'done';
      if (message.command === 'nlp_end') settleType(reply);
      return;
    }
    default:
      return;
  }
}

export const chatSlice = createSlice({
  name: 'chat',
  initialState: initialChatState,
  reducers: {
    /** The visitor sent text (typed, a suggestion or a resend); shown at once, confirmed by the asr echo. */
    ownMessageAdded(state, action: PayloadAction<{ msgId: string; text: string }>) {
      const { msgId, text } = action.payload;
      if (find(state, keyOf(true, msgId))) return;
      addMessage(state, {
        key: keyOf(true, msgId),
        msgId,
        fromMe: true,
        type: 'text',
        messageType: 'tts',
        msgArr: [{ type: 'text', content: text }],
        status: 'sending',
      });
      state.repeatable = null;
      state.resendOpenFor = null;
    },
    /** A tap on a visitor message: Resend shows at its top. Only the visitor's own messages can be resent. */
    resendOpened(state, action: PayloadAction<string>) {
      state.resendOpenFor = find(state, action.payload)?.fromMe ? action.payload : null;
    },
    /** A tap anywhere else. */
    resendClosed(state) {
      state.resendOpenFor = null;
    },
    /** A long press: only on the last visitor message. */
    repeatableMarked(state, action: PayloadAction<string>) {
      if (lastVisitorKey(state) === action.payload) state.repeatable = action.payload;
    },
    /** Resend tapped (or a repeatable message clicked); the saga sends its text again. */
    resendRequested(state, _action: PayloadAction<string>) {
      state.resendOpenFor = null;
      state.repeatable = null;
    },
    /** A suggested question tapped; the saga sends it as the visitor's message. */
    suggestionTapped(_state, _action: PayloadAction<string>) {},
    /** An inline video started: it is announced, and every other one pauses. */
    videoStarted(state, action: PayloadAction<{ video: string; msgId: string }>) {
      state.playingVideo = action.payload.video;
    },
    /** An inline video paused or ended. */
    videoStopped(state, action: PayloadAction<{ video: string; msgId: string }>) {
      if (state.playingVideo === action.payload.video) state.playingVideo = null;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(messageReceived, (state, action) => receive(state, action.payload))
      .addCase(sendRequested, (state, action) => {
        if (action.payload.type !== 'break') return;
        // Interrupting the avatar also pauses a video being played and cuts the reply short.
        state.playingVideo = null;
        interruptReplies(state);
      })
      .addCase(sendFailed, (state, action) => {
        const request = action.payload.request;
        if (request.type !== 'message_text' || request.source !== 'nlpmsg') return;
        const own = find(state, keyOf(true, request.data.msg_id));
        if (own && own.status === 'sending') own.status = 'failed';
      })
      .addCase(sessionEnded, () => initialChatState);
  },
});

export const {
  ownMessageAdded,
  resendOpened,
  resendClosed,
  repeatableMarked,
  resendRequested,
  suggestionTapped,
  videoStarted,
  videoStopped,
} = chatSlice.actions;
