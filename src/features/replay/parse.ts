/**
 * Reads a session log file from an untrusted source (whatever a visitor sent).
 * A file that is not a log of a known version is refused with a reason a
 * person can act on; damaged entries inside a good file are skipped and counted;
 * its strings' control and direction characters are made visible (visible.ts).
 */
import { isLogEntry, SCHEMA_VERSION, type LogEntry, type SessionLogFile } from '../sessionLog/types.ts';
import { visibleDeep } from './visible.ts';

/** Far above the recorder's 5,000: only a hostile or broken file gets near it. */
export const MAX_ENTRIES = 100_000;

export class LogFileError extends Error {
  override readonly name = 'LogFileError';
}

export interface ParsedLog {
  file: SessionLogFile;
  /** Entries dropped because they did not have an entry's shape. */
  skipped: number;
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function strOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function parseLogFile(input: string | unknown): ParsedLog {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      throw new LogFileError('not JSON');
    }
  }
  // Every string the viewer and the CLI show comes from here: control and direction characters
  // become visible escapes before anything reads them (visible.ts).
  value = visibleDeep(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LogFileError('not a session log object');
  const raw = value as Record<string, unknown>;
  if (raw.schemaVersion !== SCHEMA_VERSION) {
    throw new LogFileError(`unsupported schema version ${JSON.stringify(raw.schemaVersion ?? null)} (this viewer reads ${SCHEMA_VERSION})`);
  }
  if (!Array.isArray(raw.entries)) throw new LogFileError('no entries');
  if (raw.entries.length > MAX_ENTRIES) throw new LogFileError(`too many entries (${raw.entries.length})`);
  const entries: LogEntry[] = raw.entries.filter(isLogEntry);
  // Replay order is the recording order; a hand-edited file may have shuffled it.
  entries.sort((a, b) => a.seq - b.seq);
  return {
    file: {
      schemaVersion: SCHEMA_VERSION,
      appVersion: str(raw.appVersion),
      environment: str(raw.environment),
      userAgent: str(raw.userAgent),
      accountId: strOrNull(raw.accountId),
      deviceId: strOrNull(raw.deviceId),
      startedAt: str(raw.startedAt),
      exportedAt: str(raw.exportedAt),
      dropped: typeof raw.dropped === 'number' && raw.dropped >= 0 ? raw.dropped : 0,
      base: raw.base ?? null,
      entries,
    },
    skipped: raw.entries.length - entries.length,
  };
}
