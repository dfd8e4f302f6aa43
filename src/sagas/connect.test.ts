import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { catalogue } from '../features/notices/messages.ts';
import { startRequested } from '../features/session/sessionSlice.ts';
import { setupSagas, type Harness } from './testing/harness.ts';

let h: Harness;

beforeEach(async () => {
  vi.useFakeTimers();
  // The URL had no id: the boot loads nothing, so there is no user id.
  h = setupSagas({ path: '/25d/' });
  await h.flush();
});

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

// docs/requirements.md R73: the digital human needs a user id.
it('a start without a user id says "UserId is required" and asks no service', async () => {
  h.dispatch(startRequested());
  await h.flush();
  expect(h.state().notices.toasts.map((t) => t.message)).toEqual([{ id: catalogue.userIdRequired.id }]);
  expect(h.live.getRoute).not.toHaveBeenCalled();
  expect(h.live.startLive).not.toHaveBeenCalled();
  expect(h.session().status).toBe('idle');
});
