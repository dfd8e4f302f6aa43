import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRequested } from '../features/session/sessionSlice.ts';
import { setupSagas, type Harness } from './testing/harness.ts';
import { goLive } from './testing/live.ts';

let h: Harness;

async function start(options: { hiddenGraceMs?: number } = {}) {
  vi.useFakeTimers();
  h = setupSagas(options);
  await h.flush();
}

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

describe('visibility', () => {
  it('ends a live session at once when the page is hidden', async () => {
    await start();
    await goLive(h);
    h.setHidden(true);
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'hidden' });
    expect(h.sockets[0]?.types()).toContain('close_webrtc');
    expect(h.live.stopLive).toHaveBeenCalled();
  });

  it('ends a connecting session when the page is hidden', async () => {
    await start();
    h.streams.isStreamActive.mockResolvedValue(false);
    h.dispatch(startRequested());
    await h.flush();
    h.setHidden(true);
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'hidden' });
  });

  it('waits 3 s on iOS or in a messenger app before ending', async () => {
    await start({ hiddenGraceMs: 3000 });
    await goLive(h);
    h.setHidden(true);
    await h.advance(2999);
    expect(h.session().status).toBe('live');
    await h.advance(1);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'hidden' });
  });

  it('keeps the session when the page is visible again within the 3 s grace', async () => {
    await start({ hiddenGraceMs: 3000 });
    await goLive(h);
    h.setHidden(true);
    await h.advance(1000);
    h.setHidden(false);
    await h.advance(5000);
    expect(h.session().status).toBe('live');
    expect(h.ofType('session/endTriggered')).toEqual([]);
  });

  it('does nothing when the page is hidden without a session', async () => {
    await start();
    h.setHidden(true);
    await h.flush();
    expect(h.ofType('session/endTriggered')).toEqual([]);
    expect(h.session().status).toBe('idle');
  });
});
