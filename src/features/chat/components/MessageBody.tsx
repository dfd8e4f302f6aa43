import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { chatMessages } from '../messages.ts';
import { TEXT_COLLAPSE_CHARS, textPreview, toBlocks, type Block, type ChatMessage } from '../model.ts';
import { Gallery } from './Gallery.tsx';
import { InlineVideo } from './InlineVideo.tsx';
import { RelatedQuestions } from './RelatedQuestions.tsx';
import { WebPageCard } from './WebPageCard.tsx';

/**
 * A message's parts as the log draws them. Everything from the network is
 * rendered as React text or as an attribute checked to be http(s): never HTML.
 */
export function MessageBody({ message, only }: { message: ChatMessage; only: 'content' | 'related' }) {
  const blocks = useMemo(() => toBlocks(message.msgArr), [message.msgArr]);
  const wanted = blocks.filter((b) => (b.kind === 'related') === (only === 'related'));
  return wanted.map((block) => <BlockView key={block.key} block={block} message={message} />);
}

function BlockView({ block, message }: { block: Block; message: ChatMessage }) {
  switch (block.kind) {
    case 'text':
      return <TextBlock text={block.text} />;
    case 'gallery':
      return <Gallery images={block.images} />;
    case 'video':
      return <InlineVideo messageKey={message.key} msgId={message.msgId} partIndex={block.partIndex} url={block.url} />;
    case 'webPage':
      return <WebPageCard url={block.url} />;
    case 'related':
      return <RelatedQuestions questions={block.questions} />;
    case 'divider':
      return <hr className="msg__divider" />;
  }
}

/**
 * A very long text (a 100 KB answer) shows its beginning and Show more: laying
 * out the whole of it again for every part still arriving would stall the page,
 * and nobody reads 100 KB in a bubble anyway.
 */
function TextBlock({ text }: { text: string }) {
  const intl = useIntl();
  const [expanded, setExpanded] = useState(false);
  if (expanded || text.length <= TEXT_COLLAPSE_CHARS) return <p className="msg__text">{text}</p>;
  return (
    <>
      <p className="msg__text">{textPreview(text)}</p>
      <button type="button" className="msg__more" onClick={() => setExpanded(true)}>
        {intl.formatMessage(chatMessages.showMore)}
      </button>
    </>
  );
}
