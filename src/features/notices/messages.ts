import { defineMessages } from 'react-intl';

/**
 * The error catalogue (docs/requirements.md, section 8) and the localized messages it lists.
 * Sagas put notices by id (`{ id: catalogue.invalidUser.id }`); the notice
 * components format them in the visitor's language. In `zh` each text is
 * exactly the specification's.
 */
export const catalogue = defineMessages({
  invalidUser: { id: 'error.invalidUser', defaultMessage: 'Invalid user!!!' },
  asrConfigFailed: { id: 'error.asrConfigFailed', defaultMessage: 'Speech recognition is not configured for this account' },
  speechUnreachable: {
    id: 'error.speechUnreachable',
    defaultMessage: 'The speech service cannot be reached. Check your connection and try again.',
  },
  mediaAccessFailed: {
    id: 'error.mediaAccessFailed',
    defaultMessage: 'Cannot access the microphone or camera. Please check your device settings or browser permissions.',
  },
  micLost: {
    id: 'error.micLost',
    defaultMessage: 'The microphone was disconnected, so the call has ended. Check your microphone and start the call again.',
  },
  webrtcUnsupported: {
    id: 'error.webrtcUnsupported',
    defaultMessage: 'This browser is not supported. Please switch to QQ Browser.',
  },
  pleaseWait: { id: 'error.pleaseWait', defaultMessage: 'Please wait, connecting!!!' },
  iceError: { id: 'error.iceError', defaultMessage: 'WebRTC connection error, please try again later!' },
  reconnectFailed: { id: 'error.reconnectFailed', defaultMessage: 'Connection failed, please refresh the page and try again' },
  soundBlocked: {
    id: 'error.soundBlocked',
    defaultMessage: "The browser is holding back the avatar's sound. Tap to play to hear it, or OK to end the chat.",
  },
  playFailed: { id: 'error.playFailed', defaultMessage: 'Playback failed, please refresh and try again' },
  videoNotStarted: {
    id: 'error.videoNotStarted',
    defaultMessage: "The avatar's video has not started. Tap to play to start it, or OK to end the chat.",
  },
  startUnreachable: {
    id: 'error.startUnreachable',
    defaultMessage: 'The avatar service cannot be reached. Check your connection and try again.',
  },
  startFailed: { id: 'error.startFailed', defaultMessage: 'The avatar could not be started. Please try again in a moment.' },
  routeFailed: { id: 'error.routeFailed', defaultMessage: 'Failed to get the signaling service!!!' },
  signalingLost: { id: 'error.signalingLost', defaultMessage: 'The connection to your assistant was lost. Start the chat again to continue.' },
  signalingDisconnected: { id: 'error.signalingDisconnected', defaultMessage: 'Signaling disconnected' },
  sessionQuit: { id: 'error.sessionQuit', defaultMessage: 'The session has ended' },
  micPermissionDisabled: {
    id: 'error.micPermissionDisabled',
    defaultMessage: 'Microphone permission is disabled. Please enable it in your browser or device settings.',
  },
  voicePermissionFailed: { id: 'error.voicePermissionFailed', defaultMessage: 'Failed to obtain voice permission' },
  cannotRecord: {
    id: 'error.cannotRecord',
    defaultMessage: 'Unable to record sound. Please allow microphone access for the browser in your phone settings.',
  },
  notRecognized: { id: 'error.notRecognized', defaultMessage: 'Text not recognized' },
  audioPlaybackError: { id: 'error.audioPlaybackError', defaultMessage: 'Audio playback error' },
  noReplay: { id: 'error.noReplay', defaultMessage: 'No content replay available at the moment' },
  noContent: { id: 'error.noContent', defaultMessage: 'No content generated' },
  contentInterrupted: { id: 'error.contentInterrupted', defaultMessage: 'Content generation interrupted' },
  resultInterrupted: { id: 'error.resultInterrupted', defaultMessage: 'Result generation interrupted' },
  onTheirWay: { id: 'error.onTheirWay', defaultMessage: 'Digital people are on their way' },
  userIdRequired: { id: 'error.userIdRequired', defaultMessage: 'UserId is required' },
  noVoice: { id: 'error.noVoice', defaultMessage: 'No voice detected' },
  sendWhileClosed: { id: 'error.sendWhileClosed', defaultMessage: 'Not connected yet. Your message was kept; try again in a moment.' },
  appLoadFailed: { id: 'error.appLoadFailed', defaultMessage: 'The chat could not be loaded. Check your connection and try again.' },
});
