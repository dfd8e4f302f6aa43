import { afterEach, describe, expect, it, vi } from 'vitest';
import { endRequested } from '../features/session/sessionSlice.ts';
import { addLogSink, type LogRecord } from '../services/logger.ts';
import type { ScreenWakeLock } from '../services/platform.ts';
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

describe('screen wake lock', () => {
  it('is held while the session is live and released by End chat', async () => {
    await start();
    expect(h.platform.requestScreenWakeLock).not.toHaveBeenCalled();
    await goLive(h);
    expect(h.platform.requestScreenWakeLock).toHaveBeenCalledTimes(1);
    expect(h.wakeLocks.held()).toBe(1);
    h.dispatch(endRequested());
    await h.flush();
    expect(h.session().status).toBe('idle');
    expect(h.wakeLocks.held()).toBe(0);
    expect(h.wakeLocks.all[0]!.release).toHaveBeenCalledTimes(1);
  });

  it('is taken again when the page is visible again after the browser dropped it (iOS grace)', async () => {
    await start({ hiddenGraceMs: 3000 });
    await goLive(h);
    h.setHidden(true);
    h.wakeLocks.drop();
    await h.advance(1000);
    expect(h.platform.requestScreenWakeLock).toHaveBeenCalledTimes(1);
    h.setHidden(false);
    await h.flush();
    expect(h.session().status).toBe('live');
    expect(h.platform.requestScreenWakeLock).toHaveBeenCalledTimes(2);
    expect(h.wakeLocks.held()).toBe(1);
    h.dispatch(endRequested());
    await h.flush();
    expect(h.wakeLocks.held()).toBe(0);
  });

  it('is not asked for again on a visible page while it is still held', async () => {
    await start({ hiddenGraceMs: 3000 });
    await goLive(h);
    h.setHidden(true);
    await h.advance(500);
    h.setHidden(false);
    await h.flush();
    expect(h.platform.requestScreenWakeLock).toHaveBeenCalledTimes(1);
    expect(h.wakeLocks.held()).toBe(1);
  });

  it('refused (battery saver): the session goes on, the log says so, and it is asked for again on return', async () => {
    await start({ hiddenGraceMs: 3000 });
    h.platform.requestScreenWakeLock.mockRejectedValueOnce(new DOMException('refused', 'NotAllowedError'));
    const records: LogRecord[] = [];
    const removeSink = addLogSink((record) => records.push(record));
    await goLive(h);
    removeSink();
    expect(h.session().status).toBe('live');
    expect(h.wakeLocks.held()).toBe(0);
    // The session log (a sink of the logger) records why the screen may lock.
    expect(records.filter((r) => r.feature === 'wakeLock' && r.level === 'warn').map((r) => JSON.stringify(r))).toEqual([
      expect.stringContaining('NotAllowedError'),
    ]);
    h.setHidden(true);
    await h.advance(500);
    h.setHidden(false);
    await h.flush();
    expect(h.wakeLocks.held()).toBe(1);
  });

  it('missing (no navigator.wakeLock): the session goes on and it is not asked for again', async () => {
    await start({ hiddenGraceMs: 3000 });
    h.platform.requestScreenWakeLock.mockRejectedValue(new DOMException('Screen Wake Lock is not available', 'NotSupportedError'));
    await goLive(h);
    expect(h.session().status).toBe('live');
    h.setHidden(true);
    await h.advance(500);
    h.setHidden(false);
    await h.flush();
    expect(h.platform.requestScreenWakeLock).toHaveBeenCalledTimes(1);
    expect(h.session().status).toBe('live');
  });

  it('granted only after the session ended: released at once', async () => {
    await start();
    let grant: (lock: ScreenWakeLock) => void = () => undefined;
    h.platform.requestScreenWakeLock.mockImplementationOnce(() => new Promise((resolve) => (grant = resolve)));
    await goLive(h);
    h.dispatch(endRequested());
    await h.flush();
    const late = h.wakeLocks.create();
    grant(late);
    await h.flush();
    expect(late.release).toHaveBeenCalledTimes(1);
    expect(h.wakeLocks.held()).toBe(0);
  });
});
