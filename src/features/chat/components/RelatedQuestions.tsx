import { useIntl } from 'react-intl';
import { useAppDispatch } from '../../../app/hooks.ts';
import { suggestionTapped } from '../chatSlice.ts';
import { chatMessages } from '../messages.ts';
import { QuestionIcon } from './icons.tsx';
import './parts.css';

/** Suggested questions; tapping one sends it as the visitor's message. */
export function RelatedQuestions({ questions }: { questions: string[] }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const title = intl.formatMessage(chatMessages.relatedQa);
  return (
    <div className="related" role="group" aria-label={title}>
      <span className="related__title" aria-hidden="true">
        {title}
      </span>
      {questions.map((question, i) => (
        <button key={`${i}:${question}`} type="button" className="related__chip" onClick={() => dispatch(suggestionTapped(question))}>
          <QuestionIcon />
          <span>{question}</span>
        </button>
      ))}
    </div>
  );
}
