import { useIntl } from 'react-intl';
import { catalogue } from '../../notices/messages.ts';
import { chatMessages } from '../messages.ts';
import { showsThinkingDots, type ChatMessage } from '../model.ts';
import { AiNote } from './AiNote.tsx';
import { MessageBody } from './MessageBody.tsx';
import { ThinkingDots } from './ThinkingDots.tsx';

/** What a reply says about itself when its content stopped short or never came. */
function statusText(message: ChatMessage) {
  const empty = message.msgArr.length === 0;
  if (message.status === 'interrupted') return empty ? catalogue.contentInterrupted : catalogue.resultInterrupted;
  if (message.status === 'done' && empty) return catalogue.noContent;
  return null;
}

/** One reply of the assistant: its bubble, its suggested questions below, and the AI note. */
export function AssistantMessage({ message }: { message: ChatMessage }) {
  const intl = useIntl();
  const inProgress = message.status === 'thinking' || message.status === 'speaking';
  const dots = inProgress && showsThinkingDots(message);
  const hasContent = message.msgArr.some((p) => p.type !== 'relatedQa');
  const hasRelated = message.msgArr.some((p) => p.type === 'relatedQa');
  const status = statusText(message);

  return (
    <li className={`msg msg--ai${message.type === 'questionPrompt' ? ' msg--prompt' : ''}`}>
      <span className="visually-hidden">{intl.formatMessage(chatMessages.assistant)}</span>
      {(dots || hasContent || status) && (
        <div className="bubble bubble--ai">
          {hasContent && <MessageBody message={message} only="content" />}
          {dots && <ThinkingDots />}
          {status && (
            <p className={`msg__status${hasContent ? '' : ' msg__status--alone'}`}>{intl.formatMessage(status)}</p>
          )}
        </div>
      )}
      {hasRelated && <MessageBody message={message} only="related" />}
      {message.msgArr.length > 0 && <AiNote />}
    </li>
  );
}
