/**
 * The session log recorder: a ring of the last 5,000 entries (actions, store
 * creations and what services saw outside), each with a monotonic timestamp,
 * redacted as it is recorded, persisted to sessionStorage off the hot path
 * (every 10 s at most, less often when a write is expensive; at once when the page
 * is hidden or left, which covers reloads).
 *
 * When the ring evicts an entry, the recorder rolls a base state forward
 * through the same reducer, so a truncated log still replays exactly.
 */
import type { Reducer, UnknownAction } from '@reduxjs/toolkit';
import { createLogger } from '../../services/logger.ts';
import { applyEntry } from './apply.ts';
import { isQuotaError, parseStored, serializeEntry, serializeStored, STORAGE_KEY } from './persistence.ts';
import { createRedactor, type Redactor } from './redact.ts';
import { Ring } from './ring.ts';
import type { ExternalKind, LogEntry, RecordedAction } from './types.ts';
import { lastOf } from '../../services/compat.ts';

const log = createLogger('sessionLog');

export const DEFAULT_CAPACITY = 5000;
/**
 * Writes to storage at most this often: a crash or a killed tab loses at most the last
 * seconds (a reload or a hidden page writes at once). Every write carries the whole log,
 * so this interval is most of the recorder's cost (bench/session-log-cost.mjs).
 */
export const PERSIST_INTERVAL_MS = 10_000;
/**
 * Each write carries the whole log (close to 1 MB when the ring is full), and a
 * sessionStorage.setItem that large takes tens of milliseconds (50 ms measured in
 * Chromium, bench/session-log-cost.mjs). So the next write waits until the last
 * one is at most this share of the time since; pagehide still writes at once.
 */
export const PERSIST_BUDGET = 0.0025;
export const MAX_PERSIST_INTERVAL_MS = 60_000;

export interface RecorderOptions {
  capacity?: number;
  /** The app's root reducer: keeps the base state of a truncated log. Without it, truncated logs replay from the initial state. */
  reducer?: Reducer;
  /** sessionStorage in the app; null or absent: memory only. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  storageKey?: string;
  /** Where `pagehide` / `visibilitychange` are listened for to flush; null: none. */
  lifecycle?: Pick<Window, 'addEventListener' | 'removeEventListener'> | null;
  appVersion?: string;
  environment?: string;
  /** Monotonic clock (ms); performance.now by default. */
  now?: () => number;
  /** Wall clock (ms since epoch); Date.now by default. */
  wallClock?: () => number;
}

export interface LogSnapshot {
  startedAt: number;
  dropped: number;
  base: unknown;
  entries: LogEntry[];
}

export interface SessionRecorder {
  readonly capacity: number;
  readonly appVersion: string;
  readonly environment: string;
  readonly redactor: Redactor;
  /** True when this recorder continued a log restored from storage. */
  readonly restored: boolean;
  recordAction(action: UnknownAction): void;
  /** A store was created with this state: replay resets here. Called by the middleware. */
  recordStore(state: unknown): void;
  /** Non-action entries: requests (method, url, status, ms, outcome), signaling, ICE, VAD, recognizer, errors. */
  recordExternal(kind: ExternalKind, data: unknown): void;
  snapshot(): LogSnapshot;
  /** Writes to storage now (also done on pagehide and on a timer). */
  flush(): void;
  dispose(): void;
}

interface Slot {
  entry: LogEntry;
  json: string | null;
}

const round1 = (ms: number) => Math.round(ms * 10) / 10;

function scheduleIdle(fn: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: 2000 });
  else fn();
}

export function createRecorder(options: RecorderOptions = {}): SessionRecorder {
  const capacity = options.capacity ?? DEFAULT_CAPACITY;
  const storage = options.storage ?? null;
  const storageKey = options.storageKey ?? STORAGE_KEY;
  const now = options.now ?? (() => performance.now());
  const wallClock = options.wallClock ?? (() => Date.now());
  const reducer = options.reducer;
  const redactor = createRedactor();
  const ring = new Ring<Slot>(capacity);

  // undefined, not null: it is handed to reducers, which build their initial state from undefined.
  let base: unknown = undefined;
  let baseKnown = true;
  let dropped = 0;
  let nextSeq = 0;
  let lastT = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let persistInterval = PERSIST_INTERVAL_MS;
  let quotaWarned = false;

  const evicted = (slot: Slot) => {
    dropped += 1;
    if (reducer) base = applyEntry(base, slot.entry, reducer);
    else if (slot.entry.kind === 'store') base = slot.entry.state;
    else if (slot.entry.kind === 'action') baseKnown = false;
  };
  const append = (entry: LogEntry, json: string | null = null) => {
    const out = ring.push({ entry, json });
    if (out) evicted(out);
  };

  const storedText = storage ? safeGet(storage, storageKey) : null;
  const stored = parseStored(storedText);
  if (storedText !== null && !stored) {
    // Another version's or a damaged log: start afresh rather than replay garbage.
    log.warn('stored session log discarded', { length: storedText.length });
    safeRemove(storage, storageKey);
  }
  const startedAt = stored?.startedAt ?? wallClock();
  if (stored) {
    dropped = stored.dropped;
    base = stored.base ?? undefined;
    nextSeq = stored.nextSeq;
    for (const entry of stored.entries) append(entry);
    lastT = lastOf(stored.entries)?.t ?? 0;
  }
  // Continue the restored timeline: wall-clock time since startedAt, then the monotonic clock.
  const offset = wallClock() - startedAt - now();

  const time = () => {
    lastT = Math.max(lastT, round1(now() + offset));
    return lastT;
  };

  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (!storage) return;
    const started = now();
    const slots = ring.toArray();
    for (const slot of slots) slot.json ??= serializeEntry(slot.entry);
    write(slots);
    const spent = Math.max(0, now() - started);
    persistInterval = Math.min(MAX_PERSIST_INTERVAL_MS, Math.max(PERSIST_INTERVAL_MS, spent / PERSIST_BUDGET));
  };

  /** Writes the newest entries that fit; on quota errors halves the count, rolling the base forward. */
  const write = (slots: Slot[]) => {
    let from = 0;
    let headBase = base;
    for (;;) {
      const kept = slots.slice(from);
      const head = { startedAt, dropped: dropped + from, nextSeq, base: headBase };
      try {
        storage?.setItem(storageKey, redactor.scrubText(serializeStored(head, kept.map((s) => s.json ?? ''))));
        return;
      } catch (error) {
        if (!isQuotaError(error) || kept.length < 50) {
          if (!quotaWarned) log.warn('session log not persisted', { error: String(error), entries: kept.length });
          quotaWarned = true;
          return;
        }
        const next = from + Math.ceil(kept.length / 2);
        for (const slot of slots.slice(from, next)) headBase = reducer ? applyEntry(headBase, slot.entry, reducer) : undefined;
        from = next;
      }
    }
  };

  const schedule = () => {
    if (!storage || timer !== null) return;
    timer = setTimeout(() => scheduleIdle(flush), persistInterval);
  };

  const lifecycle = options.lifecycle ?? null;
  const onPageHide = () => flush();
  const onVisibility = () => {
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') flush();
  };
  lifecycle?.addEventListener('pagehide', onPageHide);
  lifecycle?.addEventListener('visibilitychange', onVisibility);

  const record = (entry: LogEntry) => {
    append(entry);
    schedule();
  };

  return {
    capacity,
    appVersion: options.appVersion ?? '',
    environment: options.environment ?? '',
    redactor,
    restored: stored !== null,
    recordAction(action) {
      record({ seq: nextSeq++, t: time(), kind: 'action', action: redactor.redact(action) as RecordedAction });
    },
    recordStore(state) {
      record({ seq: nextSeq++, t: time(), kind: 'store', state: redactor.redact(state), reload: stored !== null });
    },
    recordExternal(kind, data) {
      record({ seq: nextSeq++, t: time(), kind, data: redactor.redact(data) });
    },
    snapshot() {
      return { startedAt, dropped, base: dropped > 0 && baseKnown ? (base ?? null) : null, entries: ring.toArray().map((s) => s.entry) };
    },
    flush,
    dispose() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      lifecycle?.removeEventListener('pagehide', onPageHide);
      lifecycle?.removeEventListener('visibilitychange', onVisibility);
    },
  };
}

function safeRemove(storage: Pick<Storage, 'removeItem'> | null, key: string): void {
  try {
    storage?.removeItem(key);
  } catch {
    // Nothing more to do: the next write replaces it anyway.
  }
}

function safeGet(storage: Pick<Storage, 'getItem'>, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch (error) {
    log.warn('session log storage unreadable', { error: String(error) });
    return null;
  }
}
