import { describe, expect, it } from 'vitest';
import { callEntered, callLeft } from '../input/inputSlice.ts';
import { sessionEnded } from '../session/sessionSlice.ts';
import { messageReceived, sendRequested } from '../signaling/signalingActions.ts';
import {
  holdAborted,
  holdReleased,
  holdSlid,
  holdStarted,
  initialVoiceState,
  micAccessFailed,
  muteToggled,
  selectVoiceStatus,
  sentenceRecognized,
  voiceSlice,
  type VoiceState,
} from './voiceSlice.ts';

const reduce = (actions: Parameters<typeof voiceSlice.reducer>[1][], state: VoiceState = initialVoiceState) =>
  actions.reduce(voiceSlice.reducer, state);
const status = (state: VoiceState) => selectVoiceStatus({ voice: state });
const command = (name: 'nlp_ready' | 'nlp_running' | 'nlp_end', msgId: string) =>
  messageReceived({ msg_type: 'command', command: name, msg_id: msgId });

describe('voice slice', () => {
  it('recording while held; sliding up marks cancel only while held; release keeps the mark for the saga', () => {
    expect(reduce([holdSlid(true)]).willCancel).toBe(false);
    const held = reduce([holdStarted(), holdSlid(true)]);
    expect(status(held)).toBe('recording');
    expect(reduce([holdReleased()], held)).toMatchObject({ hold: 'idle', willCancel: true });
    expect(reduce([holdStarted(), holdAborted()])).toMatchObject({ hold: 'idle', willCancel: true });
  });

  it('voice states in a call: listening, muted, thinking after a sentence, speaking with the avatar', () => {
    const inCall = reduce([callEntered()]);
    expect(status(inCall)).toBe('listening');
    expect(status(reduce([muteToggled()], inCall))).toBe('muted');
    const thinking = reduce([sentenceRecognized({ msgId: 'v-1', text: 'hi' })], inCall);
    expect(status(thinking)).toBe('thinking');
    const speaking = reduce([command('nlp_ready', 'r-1'), command('nlp_running', 'r-1')], thinking);
    expect(status(speaking)).toBe('speaking');
    expect(status(reduce([command('nlp_end', 'r-1')], speaking))).toBe('listening');
  });

  it('a late nlp_end of an older reply does not end the current one; a break does', () => {
    const speaking = reduce([command('nlp_running', 'r-2')]);
    expect(reduce([command('nlp_end', 'r-1')], speaking).avatar).toBe('speaking');
    expect(reduce([sendRequested({ type: 'break' })], speaking).avatar).toBe('idle');
  });

  it('leaving the call clears mute; the session ending keeps only the refused permission', () => {
    expect(reduce([callEntered(), muteToggled(), callLeft()])).toMatchObject({ call: 'off', muted: false });
    expect(reduce([micAccessFailed('denied'), callEntered(), sessionEnded()])).toEqual({ ...initialVoiceState, micDenied: true });
    expect(reduce([micAccessFailed('unavailable')]).micDenied).toBe(false);
  });
});
