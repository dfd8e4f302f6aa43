import type { MessageDescriptor } from 'react-intl';
import { useIntl } from 'react-intl';
import { useAppSelector } from '../../../app/hooks.ts';
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

/** The newest words matter: a long hypothesis shows its end. */
const MAX_WORDS_CHARS = 60;
function lastWords(words: string): string {
  return words.length > MAX_WORDS_CHARS ? `…${words.slice(-MAX_WORDS_CHARS)}` : words;
}

/**
 * The voice state (listening, speaking, thinking, muted, recording) with a small level
 * animation, and the words recognized so far. Only the state is a live region: the
 * words change several times a second and would drown a screen reader.
 */
export function VoiceStatus() {
  const intl = useIntl();
  const status = useAppSelector(selectVoiceStatus);
  const hearing = useAppSelector(selectHearing);
  const words = useAppSelector(selectHypothesis);
  const active = status === 'recording' || (status === 'listening' && hearing);
  return (
    <div className={`voice-status voice-status--${status}${active ? ' voice-status--active' : ''}`}>
      <span className="voice-status__bars" aria-hidden="true">
        <i />
        <i />
        <i />
        <i />
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
