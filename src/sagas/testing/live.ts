import { expect } from 'vitest';
import { startRequested, videoCanPlay, videoPlaying } from '../../features/session/sessionSlice.ts';
import type { Harness } from './harness.ts';

/** Drives a session from Start chat to live with the default (happy) fakes. */
export async function goLive(h: Harness): Promise<void> {
  h.dispatch(startRequested());
  await h.flush();
  expect(h.session().phase).toBe('video');
  h.dispatch(videoCanPlay());
  h.dispatch(videoPlaying());
  await h.flush();
  expect(h.session().status).toBe('live');
}
