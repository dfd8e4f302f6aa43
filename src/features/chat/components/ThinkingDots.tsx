import { useRef } from 'react';
import { useIntl } from 'react-intl';
import { prefersReducedMotion, useStep } from '../../../app/useStep.ts';
import { chatMessages } from '../messages.ts';

/** How long each dot stays up; with reduced motion, twice as long. */
export const DOT_STEP_MS = 400;
const DOTS = 3;

/** ChatLog.css raises the dot that data-step names. */
const showStep = (element: HTMLElement, step: number) => {
  element.dataset.step = String(step);
};

/**
 * Three animated dots while a reply is being thought of: one dot up at a time, in turn,
 * stepped by useStep rather than by a CSS animation, which kept the compositor drawing 60
 * frames a second over the video for as long as a reply was thinking.
 */
export function ThinkingDots() {
  const intl = useIntl();
  const ref = useRef<HTMLSpanElement>(null);
  useStep(ref, DOTS, prefersReducedMotion() ? 2 * DOT_STEP_MS : DOT_STEP_MS, true, showStep);
  return (
    <span ref={ref} className="thinking" role="img" aria-label={intl.formatMessage(chatMessages.thinking)} data-step="0">
      <span className="thinking__dot" />
      <span className="thinking__dot" />
      <span className="thinking__dot" />
    </span>
  );
}
