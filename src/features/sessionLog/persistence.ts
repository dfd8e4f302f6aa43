/**
 * The session log's sessionStorage form, so a visitor who reloads after a
 * failure still has the log of the failed attempt. sessionStorage is per tab
 * and synchronous, which lets `pagehide` write the last entries reliably.
 *
 * Entries are serialized once each and cached by the recorder; a write joins
 * the cached strings, so serializing grows with the new entries only. The write
 * itself still carries the whole log: the recorder spaces writes by their cost.
 */
import { isLogEntry, type LogEntry } from './types.ts';

export const STORAGE_KEY = 'sessionLog';
const STORAGE_VERSION = 1;

export interface StoredLog {
  startedAt: number;
  dropped: number;
  nextSeq: number;
  base: unknown;
  entries: LogEntry[];
}

export function serializeEntry(entry: LogEntry): string {
  try {
    return JSON.stringify(entry);
  } catch {
    // A cycle or a hostile toJSON in recorded data: keep the entry's place and say so.
    const { seq, t, kind } = entry;
    return JSON.stringify(kind === 'action' ? { seq, t, kind, action: { type: entry.action.type, payload: '[unserializable]' } } : { seq, t, kind, data: '[unserializable]' });
  }
}

export function serializeStored(head: Omit<StoredLog, 'entries'>, entryJson: readonly string[]): string {
  let base = 'null';
  try {
    base = JSON.stringify(head.base ?? null);
  } catch {
    // The replay will start from the reducer's initial state instead.
  }
  return (
    `{"v":${STORAGE_VERSION},"startedAt":${head.startedAt},"dropped":${head.dropped},"nextSeq":${head.nextSeq},` +
    `"base":${base},"entries":[${entryJson.join(',')}]}`
  );
}

/** Parses what sessionStorage holds; null (never a throw) for anything that is not a log of this version. */
export function parseStored(text: string | null): StoredLog | null {
  if (!text) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.v !== STORAGE_VERSION || !Array.isArray(v.entries)) return null;
  if (typeof v.startedAt !== 'number' || typeof v.dropped !== 'number' || typeof v.nextSeq !== 'number') return null;
  const entries = v.entries.filter(isLogEntry);
  if (entries.length !== v.entries.length) return null;
  return { startedAt: v.startedAt, dropped: v.dropped, nextSeq: v.nextSeq, base: v.base ?? null, entries };
}

export function isQuotaError(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'QuotaExceededError' || error.code === 22);
}
