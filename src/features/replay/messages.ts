import { defineMessages } from 'react-intl';

/** The replay viewer at /25d/replay, a tool for support staff. */
export const replayMessages = defineMessages({
  title: { id: 'replay.title', defaultMessage: 'Session replay' },
  openFile: { id: 'replay.openFile', defaultMessage: 'Open session log' },
  empty: { id: 'replay.empty', defaultMessage: 'Open a session log file (.json) to replay what the visitor saw.' },
  invalidFile: { id: 'replay.invalidFile', defaultMessage: 'This file cannot be replayed: {reason}' },
  meta: {
    id: 'replay.meta',
    defaultMessage: 'Account {account}, device {device}, app {version} ({environment}), started {startedAt}',
  },
  dropped: { id: 'replay.dropped', defaultMessage: '{count} older entries were dropped; the replay starts from the state they left.' },
  skipped: { id: 'replay.skipped', defaultMessage: '{count} damaged entries were skipped.' },
  play: { id: 'replay.play', defaultMessage: 'Play' },
  pause: { id: 'replay.pause', defaultMessage: 'Pause' },
  stepBack: { id: 'replay.stepBack', defaultMessage: 'Step back' },
  stepForward: { id: 'replay.stepForward', defaultMessage: 'Step forward' },
  speed: { id: 'replay.speed', defaultMessage: 'Speed' },
  speedValue: { id: 'replay.speedValue', defaultMessage: '{value}×' },
  timeline: { id: 'replay.timeline', defaultMessage: 'Timeline' },
  markers: { id: 'replay.markers', defaultMessage: 'Errors and state changes' },
  position: { id: 'replay.position', defaultMessage: 'Entry {index} of {total}, {time}' },
  entries: { id: 'replay.entries', defaultMessage: 'Entries' },
  screen: { id: 'replay.screen', defaultMessage: 'The visitor’s screen' },
  screenFailed: { id: 'replay.screenFailed', defaultMessage: 'This app version cannot show the screen for this state: {reason}' },
});
