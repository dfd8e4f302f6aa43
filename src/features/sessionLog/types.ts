/**
 * The session log's entries and its file format. Version the file with
 * SCHEMA_VERSION: the replay viewer and CLI refuse versions they do not know.
 */
export const SCHEMA_VERSION = 1;

/** Non-action entries: what sagas and services saw of the outside world. */
export const EXTERNAL_KINDS = ['request', 'signaling', 'peer', 'ice', 'vad', 'recognizer', 'stats', 'error', 'log'] as const;
export type ExternalKind = (typeof EXTERNAL_KINDS)[number];

/** A Redux action as recorded (redacted). */
export interface RecordedAction {
  type: string;
  payload?: unknown;
  meta?: unknown;
  error?: unknown;
}

interface EntryBase {
  /** Position in the whole log, from 0; gaps never occur, so `seq - entries[0].seq` is the drop count. */
  seq: number;
  /** Monotonic milliseconds since the log's startedAt, continued across reloads. */
  t: number;
}

export interface ActionEntry extends EntryBase {
  kind: 'action';
  action: RecordedAction;
}

/** A store was created (page load or reload): replay resets to this state. */
export interface StoreEntry extends EntryBase {
  kind: 'store';
  state: unknown;
  reload: boolean;
}

export interface ExternalEntry extends EntryBase {
  kind: ExternalKind;
  data: unknown;
}

export type LogEntry = ActionEntry | StoreEntry | ExternalEntry;

/** What a request entry's data looks like (services call recordExternal('request', ...)). */
export interface RequestRecord {
  method: string;
  url: string;
  status?: number | null;
  ms: number;
  outcome: 'ok' | 'error' | 'timeout' | 'aborted';
  error?: string;
}

/** The downloaded file. */
export interface SessionLogFile {
  schemaVersion: typeof SCHEMA_VERSION;
  appVersion: string;
  environment: string;
  userAgent: string;
  accountId: string | null;
  deviceId: string | null;
  /** Wall clock (ISO 8601) of the log's time origin: entry t = 0. */
  startedAt: string;
  exportedAt: string;
  /** Entries evicted by the ring bound before the first one in `entries`. */
  dropped: number;
  /**
   * The state just before the first entry, when entries were dropped (null
   * otherwise: the log then starts with a `store` entry). Replay starts here.
   */
  base: unknown;
  entries: LogEntry[];
}

export function isExternalKind(kind: unknown): kind is ExternalKind {
  return typeof kind === 'string' && (EXTERNAL_KINDS as readonly string[]).includes(kind);
}

/** Structural check of one entry from an untrusted source (a file, sessionStorage). */
export function isLogEntry(value: unknown): value is LogEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  if (typeof e.seq !== 'number' || !Number.isFinite(e.seq)) return false;
  if (typeof e.t !== 'number' || !Number.isFinite(e.t)) return false;
  if (e.kind === 'action') {
    const a = e.action as Record<string, unknown> | null;
    return typeof a === 'object' && a !== null && typeof a.type === 'string';
  }
  if (e.kind === 'store') return 'state' in e && typeof e.reload === 'boolean';
  return isExternalKind(e.kind);
}
