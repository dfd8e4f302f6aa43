import { defineMessages } from 'react-intl';

/**
 * Texts of the voice input: the hold-to-talk button, its overlay, call mode and
 * the voice states the spec lists (listening, speaking, thinking, muted, recording).
 */
export const voiceMessages = defineMessages({
  voiceButton: { id: 'voice.button', defaultMessage: 'Voice' },
  holdToTalk: { id: 'voice.holdToTalk', defaultMessage: 'Hold to talk' },
  releaseToSend: { id: 'voice.releaseToSend', defaultMessage: 'Release to send' },
  releaseToCancel: { id: 'voice.releaseToCancel', defaultMessage: 'Release to cancel' },
  slideUpToCancel: { id: 'voice.slideUpToCancel', defaultMessage: 'Slide up to cancel' },
  switchToVoice: { id: 'voice.switchToVoice', defaultMessage: 'Switch to voice' },
  switchToKeyboard: { id: 'voice.switchToKeyboard', defaultMessage: 'Switch to keyboard' },
  startCall: { id: 'voice.startCall', defaultMessage: 'Start call' },
  hangUp: { id: 'voice.hangUp', defaultMessage: 'Hang up' },
  muteMicrophone: { id: 'voice.muteMicrophone', defaultMessage: 'Mute microphone' },
  unmuteMicrophone: { id: 'voice.unmuteMicrophone', defaultMessage: 'Unmute microphone' },
  listening: { id: 'voice.state.listening', defaultMessage: 'Listening…' },
  speaking: { id: 'voice.state.speaking', defaultMessage: 'Speaking…' },
  thinking: { id: 'voice.state.thinking', defaultMessage: 'Thinking…' },
  muted: { id: 'voice.state.muted', defaultMessage: 'Muted' },
  recording: { id: 'voice.state.recording', defaultMessage: 'Recording…' },
  paused: { id: 'voice.state.paused', defaultMessage: 'Paused: another app is using the sound' },
  micBlocked: { id: 'voice.micBlocked', defaultMessage: 'Microphone blocked: allow it in the browser settings' },
  callControls: { id: 'voice.callControls', defaultMessage: 'Call' },
});
