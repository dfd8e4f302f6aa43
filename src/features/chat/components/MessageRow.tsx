import { memo } from 'react';
import { useAppSelector } from '../../../app/hooks.ts';
import { selectMessageByKey } from '../selectors.ts';
import { AssistantMessage } from './AssistantMessage.tsx';
import { VisitorMessage } from './VisitorMessage.tsx';

/**
 * One row of the log. Each row reads its own message, so a new part of the
 * reply being spoken re-renders that reply only, never the whole log.
 */
export const MessageRow = memo(function MessageRow({ messageKey }: { messageKey: string }) {
  const message = useAppSelector((s) => selectMessageByKey(s, messageKey));
  if (!message) return null;
  return message.fromMe ? <VisitorMessage message={message} /> : <AssistantMessage message={message} />;
});
