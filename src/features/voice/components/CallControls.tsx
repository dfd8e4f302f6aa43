import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { callLeft } from '../../input/inputSlice.ts';
import { voiceMessages } from '../messages.ts';
import { muteToggled, selectMuted } from '../voiceSlice.ts';
import { HangUpIcon, MicIcon, MicOffIcon } from '../../../app/icons.tsx';
import { VoiceStatus } from './VoiceStatus.tsx';
import './CallControls.css';

/**
 * Call mode's bar (docs/requirements.md R22): mute or unmute the microphone, the voice state,
 * and hang up, which returns to the mode before the call. The mute button's name says
 * what pressing it does, so it carries no pressed state of its own.
 */
export function CallControls() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const muted = useAppSelector(selectMuted);
  return (
    <div className="call-controls" role="group" aria-label={intl.formatMessage(voiceMessages.callControls)}>
      <button
        type="button"
        className={muted ? 'round-btn call-controls__muted' : 'round-btn'}
        onClick={() => dispatch(muteToggled())}
        aria-label={intl.formatMessage(muted ? voiceMessages.unmuteMicrophone : voiceMessages.muteMicrophone)}
      >
        {muted ? <MicOffIcon /> : <MicIcon />}
      </button>
      <div className="call-controls__status">
        <VoiceStatus />
      </div>
      <button
        type="button"
        className="round-btn call-controls__hangup"
        onClick={() => dispatch(callLeft())}
        aria-label={intl.formatMessage(voiceMessages.hangUp)}
      >
        <HangUpIcon />
      </button>
    </div>
  );
}
