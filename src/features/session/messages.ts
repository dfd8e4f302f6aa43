import { defineMessages } from 'react-intl';

/** Texts of the home screen: the pre-session state and the live state. */
export const sessionMessages = defineMessages({
  defaultTitle: { id: 'session.defaultTitle', defaultMessage: 'Your shopping assistant' },
  chatWithIt: { id: 'session.chatWithIt', defaultMessage: 'Chat with it by voice or text' },
  startChat: { id: 'session.startChat', defaultMessage: 'Start chat' },
  cancel: { id: 'session.cancel', defaultMessage: 'Cancel' },
  connecting: { id: 'session.connecting', defaultMessage: 'Connecting…' },
  phaseRoute: { id: 'session.phase.route', defaultMessage: 'Finding a line for you' },
  phaseStartLive: { id: 'session.phase.startLive', defaultMessage: 'Waking up your assistant' },
  phaseStream: { id: 'session.phase.stream', defaultMessage: 'Preparing the video' },
  linking: { id: 'session.linking', defaultMessage: 'Linking' },
  phaseVideo: { id: 'session.phase.video', defaultMessage: 'Almost there' },
  ending: { id: 'session.ending', defaultMessage: 'Ending the chat…' },
  endChat: { id: 'session.endChat', defaultMessage: 'End chat' },
  avatarVideo: { id: 'session.avatarVideo', defaultMessage: 'Avatar video' },
  tapToPlay: { id: 'session.tapToPlay', defaultMessage: 'Tap to play' },
  reconnecting: { id: 'session.reconnecting', defaultMessage: 'Reconnecting…' },
  reconnectingDetail: {
    id: 'session.reconnectingDetail',
    defaultMessage: 'The line dropped. Your assistant will be back in a moment; what you type is sent then.',
  },
});
