import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLivePeerHolder } from './livePeer.ts';
import { addLogSink, createLogger, setConsoleLevel, type LogRecord } from './logger.ts';
import { createRemoteMediaHolder } from './remoteMedia.ts';
import { createBrowserStorage, createMemoryStorage } from './storage.ts';
import type { WhepConnection } from './whep.ts';

afterEach(() => {
  setConsoleLevel('silent');
  vi.restoreAllMocks();
});

describe('remoteMedia', () => {
  it('notifies subscribers of a new stream, once per change', () => {
    const holder = createRemoteMediaHolder();
    const listener = vi.fn();
    const unsubscribe = holder.subscribe(listener);
    const stream = {} as MediaStream;
    holder.set(stream);
    holder.set(stream);
    expect(holder.get()).toBe(stream);
    expect(listener).toHaveBeenCalledTimes(1);
    unsubscribe();
    holder.set(null);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});

describe('livePeer', () => {
  it('reads stats from the current connection, or null between connections', async () => {
    const holder = createLivePeerHolder();
    await expect(holder.getStats()).resolves.toBeNull();
    const report = new Map() as unknown as RTCStatsReport;
    holder.set({ getStats: () => Promise.resolve(report) } as unknown as WhepConnection);
    await expect(holder.getStats()).resolves.toBe(report);
  });
});

describe('storage', () => {
  it('survives a storage that throws', () => {
    const broken = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    } as unknown as Storage;
    const storage = createBrowserStorage(() => broken);
    expect(storage.get('lang')).toBeNull();
    expect(() => storage.set('lang', 'en')).not.toThrow();
    expect(() => storage.remove('lang')).not.toThrow();
  });

  it('keeps values in memory', () => {
    const storage = createMemoryStorage({ a: '1' });
    storage.set('b', '2');
    storage.remove('a');
    expect(storage.dump()).toEqual({ b: '2' });
  });
});

describe('logger', () => {
  it('hands every record to the sinks and stays off the console under test', () => {
    const records: LogRecord[] = [];
    const remove = addLogSink((r) => records.push(r));
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    createLogger('session').debug('polling', { n: 1 });
    remove();
    createLogger('session').info('after');
    expect(records).toEqual([{ t: expect.any(Number), level: 'debug', feature: 'session', message: 'polling', data: { n: 1 } }]);
    expect(debug).not.toHaveBeenCalled();
  });

  it('writes to the console at or above the chosen level', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    setConsoleLevel('warn');
    const log = createLogger('media');
    log.info('quiet');
    log.warn('loud');
    expect(info).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledWith('[media] loud');
  });

  it('is not broken by a sink that throws', () => {
    const remove = addLogSink(() => {
      throw new Error('sink');
    });
    expect(() => createLogger('x').error('still fine')).not.toThrow();
    remove();
  });
});
