import { describe, expect, it } from 'vitest';
import { never, settle } from './voiceResources.ts';

describe('never()', () => {
  it('is a new promise each time: a handler a race leaves on it goes with it, not with one shared promise', async () => {
    const a = never();
    expect(never()).not.toBe(a);
    const outcome = await Promise.race([settle(a), new Promise((r) => setTimeout(() => r('timeout'), 20))]);
    expect(outcome).toBe('timeout');
  });
});
