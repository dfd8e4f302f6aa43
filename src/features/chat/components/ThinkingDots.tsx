import { useIntl } from 'react-intl';
import { chatMessages } from '../messages.ts';

/** Three animated dots while a reply is being thought of. */
export function ThinkingDots() {
  const intl = useIntl();
  return (
    <span className="thinking" role="img" aria-label={intl.formatMessage(chatMessages.thinking)}>
      <span className="thinking__dot" />
      <span className="thinking__dot" />
      <span className="thinking__dot" />
    </span>
  );
}
