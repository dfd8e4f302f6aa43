import { describe, expect, it } from 'vitest';
import { playOutcome } from './avatarPlayback.ts';

const ok: PromiseSettledResult<unknown> = { status: 'fulfilled', value: undefined };
const failed = (name: string): PromiseSettledResult<unknown> => ({ status: 'rejected', reason: new DOMException(name, name) });
const result = (name: string) => (name === 'plays' ? ok : failed(name));

describe('playOutcome', () => {
  it.each([
    ['plays', 'plays', 'playing'],
    ['plays', 'NotAllowedError', 'blocked'],
    ['NotAllowedError', 'NotSupportedError', 'blocked'],
    ['plays', 'AbortError', 'superseded'],
    ['NotSupportedError', 'plays', 'videoFailed'],
    ['NotSupportedError', 'NotSupportedError', 'videoFailed'],
    ['plays', 'NotSupportedError', 'audioFailed'],
  ])('video %s, audio %s: %s', (video, audio, outcome) => {
    expect(playOutcome(result(video), result(audio))).toBe(outcome);
  });

  it('a voice that fails with something other than an error is an audio failure too', () => {
    expect(playOutcome(ok, { status: 'rejected', reason: 'broken' })).toBe('audioFailed');
  });
});
