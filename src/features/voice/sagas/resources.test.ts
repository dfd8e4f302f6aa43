import { describe, expect, it } from 'vitest';
import { catalogue } from '../../notices/messages.ts';
import { VoicePipelineError } from '../services/pipeline.ts';
import { micFailureNotice, micFailureOf, never, settle } from './resources.ts';

describe('never()', () => {
  it('is a new promise each time: a handler a race leaves on it goes with it, not with one shared promise', async () => {
    const a = never();
    expect(never()).not.toBe(a);
    const outcome = await Promise.race([settle(a), new Promise((r) => setTimeout(() => r('timeout'), 20))]);
    expect(outcome).toBe('timeout');
  });
});

describe('micFailureNotice', () => {
  it.each([
    ['denied', catalogue.micPermissionDisabled.id],
    ['permission', catalogue.voicePermissionFailed.id],
    ['unavailable', catalogue.mediaAccessFailed.id],
    ['failed', catalogue.mediaAccessFailed.id],
  ] as const)('%s says %s', (kind, id) => {
    expect(micFailureNotice(kind)).toEqual({ id });
  });

  it('a microphone request that errs without a refusal (SecurityError) is the permission that could not be obtained', () => {
    expect(micFailureOf(new VoicePipelineError('permission', 'microphone: not allowed here'))).toBe('permission');
    expect(micFailureOf(new DOMException('not a secure page', 'SecurityError'))).toBe('permission');
    expect(micFailureOf(new DOMException('refused', 'NotAllowedError'))).toBe('denied');
  });
});
