import { useRef } from 'react';
import { useIntl } from 'react-intl';
import { useLoop, type Loop } from '../../../app/useLoop.ts';
import { chatMessages } from '../messages.ts';

/** How long each dot stays up; with reduced motion, twice as long. */
export const DOT_STEP_MS = 400;
const DOTS = 3;

/** One dot up at a time, in turn: up for the first third of the loop, each dot a third later. */
function dotsLoop(stepMs: number, up: Keyframe, down: Keyframe): Loop {
  return {
    keyframes: [
      { ...up, easing: 'step-end' },
      { ...down, offset: 1 / DOTS, easing: 'step-end' },
      { ...down, offset: 1 },
    ],
    periodMs: DOTS * stepMs,
    phasesMs: [0, 2 * stepMs, stepMs],
  };
}

export const DOTS_LOOP = dotsLoop(DOT_STEP_MS, { opacity: 1, transform: 'translateY(-4px)' }, { opacity: 0.3, transform: 'translateY(0)' });
/** With reduced motion the dots stay in place and take turns by their opacity alone. */
export const STILL_DOTS_LOOP = dotsLoop(2 * DOT_STEP_MS, { opacity: 1 }, { opacity: 0.3 });

/**
 * Three dots while a reply is being thought of, one up at a time, in turn, run by the
 * compositor (useLoop): no timer, no render and no drawing of the page for a step.
 */
export function ThinkingDots() {
  const intl = useIntl();
  const ref = useRef<HTMLSpanElement>(null);
  useLoop(ref, DOTS_LOOP, true, STILL_DOTS_LOOP);
  return (
    <span ref={ref} className="thinking" role="img" aria-label={intl.formatMessage(chatMessages.thinking)}>
      <span className="thinking__dot" />
      <span className="thinking__dot" />
      <span className="thinking__dot" />
    </span>
  );
}
