import { useIntl, type MessageDescriptor } from 'react-intl';
import { catalogue } from '../messages.ts';
import type { NoticeMessage } from '../noticesSlice.ts';

// Catalogue descriptors by id, so a notice still reads well (in en) if its locale file lacks the id.
const descriptors = new Map<string, MessageDescriptor>(Object.values(catalogue).map((d) => [d.id, d]));

/** Turns a notice's message (a message id or a server's raw text) into the text to show. */
export function useNoticeText(): (message: NoticeMessage) => string {
  const intl = useIntl();
  return (message) => {
    if ('text' in message) return message.text;
    return intl.formatMessage(descriptors.get(message.id) ?? { id: message.id }, message.values);
  };
}
