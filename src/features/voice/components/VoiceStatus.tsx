import { useRef } from 'react';
import type { MessageDescriptor } from 'react-intl';
import { useIntl } from 'react-intl';
import { useAppSelector } from '../../../app/hooks.ts';
import { useLoop, type Loop } from '../../../app/useLoop.ts';
import { voiceMessages } from '../messages.ts';
import { selectHearing, selectHypothesis, selectVoiceStatus, type VoiceStatus as Status } from '../voiceSlice.ts';
import './VoiceStatus.css';

const STATUS_TEXT: Record<Status, MessageDescriptor> = {
  listening: voiceMessages.listening,
  speaking: voiceMessages.speaking,
  thinking: voiceMessages.thinking,
  muted: voiceMessages.muted,
  recording: voiceMessages.recording,
  paused: voiceMessages.paused,
};

/** The bars' heights while the visitor is heard, one step after another (a bounce up and down). */
export const BAR_LEVELS = [0.3, 0.53, 0.77, 1, 0.77, 0.53];
/** Where in BAR_LEVELS each of the four bars starts, so they do not move together. */
const BAR_PHASES = [0, 5, 3, 1];
/** One step of the bars: a bounce every 0.9 s. */
export const BAR_STEP_MS = 150;

/** The bars' bounce while the visitor is heard; at rest the stylesheet's heights apply. */
export const BAR_LOOP: Loop = {
  keyframes: [...BAR_LEVELS, BAR_LEVELS[0]].map((level) => ({ transform: `scaleY(${level})`, easing: 'step-end' })),
  periodMs: BAR_LEVELS.length * BAR_STEP_MS,
  phasesMs: BAR_PHASES.map((phase) => phase * BAR_STEP_MS),
};

/** The newest words matter: a long hypothesis shows its end. */
const MAX_WORDS_CHARS = 60;
function lastWords(words: string): string {
  return words.length > MAX_WORDS_CHARS ? `…${words.slice(-MAX_WORDS_CHARS)}` : words;
}

/**
 * The voice state (listening, speaking, thinking, muted, recording) with a small level
 * animation, and the words recognized so far. Only the state is a live region: the
 * words change several times a second and would drown a screen reader. The bars bounce in
 * steps, run by the compositor (useLoop): no timer, no render and no drawing of the page for
 * a step.
 */
export function VoiceStatus() {
  const intl = useIntl();
  const status = useAppSelector(selectVoiceStatus);
  const hearing = useAppSelector(selectHearing);
  const words = useAppSelector(selectHypothesis);
  const active = status === 'recording' || (status === 'listening' && hearing);
  const barsRef = useRef<HTMLSpanElement>(null);
  // With less motion the bars stand still, at the raised height VoiceStatus.css gives them.
  useLoop(barsRef, BAR_LOOP, active, null);
  return (
    <div className={`voice-status voice-status--${status}${active ? ' voice-status--active' : ''}`}>
      <span ref={barsRef} className="voice-status__bars" aria-hidden="true">
        {BAR_PHASES.map((phase) => (
          <i key={phase} />
        ))}
      </span>
      <span className="voice-status__text">
        <span className="voice-status__state" aria-live="polite">
          {intl.formatMessage(STATUS_TEXT[status])}
        </span>
        {words !== '' && <span className="voice-status__words">{lastWords(words)}</span>}
      </span>
    </div>
  );
}
