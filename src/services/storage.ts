/**
 * localStorage behind a tiny interface. Storage can throw (Safari private mode,
 * quota, disabled cookies); the app must still run then, only without memory.
 */
import { createLogger } from './logger.ts';

const log = createLogger('storage');

/** The keys of docs/requirements.md R37 (docs/contract.md C19). */
export const STORAGE_KEYS = {
  lang: 'lang',
  userInfo: 'userInfo',
  userId: 'userId',
  deviceId: 'login-deviceId',
} as const;

export interface KeyValueStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

export function createBrowserStorage(backend: () => Storage = () => window.localStorage): KeyValueStorage {
  return {
    get(key) {
      try {
        return backend().getItem(key);
      } catch (error) {
        log.warn('storage read failed', { key, error: String(error) });
        return null;
      }
    },
    set(key, value) {
      try {
        backend().setItem(key, value);
      } catch (error) {
        log.warn('storage write failed', { key, error: String(error) });
      }
    },
    remove(key) {
      try {
        backend().removeItem(key);
      } catch (error) {
        log.warn('storage remove failed', { key, error: String(error) });
      }
    },
  };
}

/** An in-memory storage for tests and for code paths that must not persist. */
export function createMemoryStorage(initial: Record<string, string> = {}): KeyValueStorage & { dump(): Record<string, string> } {
  const data = new Map(Object.entries(initial));
  return {
    get: (key) => data.get(key) ?? null,
    set: (key, value) => {
      data.set(key, value);
    },
    remove: (key) => {
      data.delete(key);
    },
    dump: () => Object.fromEntries(data),
  };
}
