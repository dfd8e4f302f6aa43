import { createSelector } from '@reduxjs/toolkit';
import { initialChatState, type ChatState } from './chatSlice.ts';
import { messageText, type ChatMessage } from './model.ts';
import { lastOf } from '../../services/compat.ts';

/**
 * A store without the chat slice (a component test of another feature, an old
 * session log) reads as an empty chat. Typed on `{ chat?: ChatState }` so the
 * selectors fit any RootState.
 */
type WithChat = { chat?: ChatState };

const selectChat = (root: WithChat): ChatState => root.chat ?? initialChatState;

export const selectMessages = (root: WithChat): ChatMessage[] => selectChat(root).messages;

const sameKeys = (a: string[], b: string[]) => a.length === b.length && a.every((key, i) => key === b[i]);

/** Message keys in log order; the same array while only parts change, so the log re-renders on new messages only. */
export const selectMessageKeys = createSelector([selectMessages], (messages) => messages.map((m) => m.key), {
  memoizeOptions: { resultEqualityCheck: sameKeys },
});

/** Built once per change of the list, so each row finds its message in O(1). */
const selectByKey = createSelector([selectMessages], (messages) => new Map(messages.map((m) => [m.key, m])));

export const selectMessageByKey = (root: WithChat, key: string): ChatMessage | undefined => selectByKey(root).get(key);
export const selectResendOpenFor = (root: WithChat) => selectChat(root).resendOpenFor;
export const selectRepeatable = (root: WithChat) => selectChat(root).repeatable;
export const selectPlayingVideo = (root: WithChat) => selectChat(root).playingVideo;

/** The newest visitor message's key: a long press works on it only. */
export const selectLastVisitorKey = (root: WithChat): string | null => {
  const messages = selectMessages(root);
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]!.fromMe) return messages[i]!.key;
  return null;
};

/** The newest message's key: the log follows new messages while the visitor is at the bottom. */
export const selectNewestKey = (root: WithChat): string | null => lastOf(selectMessages(root))?.key ?? null;

/** How many of the newest assistant messages count as what the avatar has just said. */
const RECENT_REPLIES = 2;

/** The text of the avatar's newest replies, newest last: what its echo could repeat. */
export const selectRecentAvatarTexts = createSelector([selectMessages], (messages): string[] => {
  const replies: string[] = [];
  for (let i = messages.length - 1; i >= 0 && replies.length < RECENT_REPLIES; i -= 1) {
    if (!messages[i]!.fromMe) replies.unshift(messageText(messages[i]!));
  }
  return replies;
});
