/**
 * The downloadable session log: one JSON file a visitor can send and support
 * staff can open in the replay viewer or `npm run replay -- file.json`.
 */
import { createLogger } from '../../services/logger.ts';
import type { SessionRecorder } from './recorder.ts';
import { SCHEMA_VERSION, type SessionLogFile } from './types.ts';

const log = createLogger('sessionLog');

export interface LogIdentity {
  accountId: string | null;
  deviceId: string | null;
}

/** Reads the ids from a root state without depending on its type (the account slice owns them). */
export function identityFromState(state: unknown): LogIdentity {
  const account = (state as { account?: { userId?: unknown; deviceId?: unknown } } | null)?.account;
  return {
    accountId: typeof account?.userId === 'string' ? account.userId : null,
    deviceId: typeof account?.deviceId === 'string' ? account.deviceId : null,
  };
}

export function buildSessionLogFile(
  recorder: SessionRecorder,
  identity: LogIdentity,
  exportedAt: number = Date.now(),
): SessionLogFile {
  const { startedAt, dropped, base, entries } = recorder.snapshot();
  return {
    schemaVersion: SCHEMA_VERSION,
    appVersion: recorder.appVersion,
    environment: recorder.environment,
    userAgent: typeof navigator === 'undefined' ? '' : navigator.userAgent,
    accountId: identity.accountId,
    deviceId: identity.deviceId,
    startedAt: new Date(startedAt).toISOString(),
    exportedAt: new Date(exportedAt).toISOString(),
    dropped,
    base,
    entries,
  };
}

/** The file's text. Entries were redacted when recorded; learnt secrets are scrubbed once more from the whole text. */
export function serializeSessionLogFile(file: SessionLogFile, recorder: Pick<SessionRecorder, 'redactor'>): string {
  return recorder.redactor.scrubText(JSON.stringify(file));
}

export function sessionLogFileName(file: Pick<SessionLogFile, 'accountId' | 'exportedAt'>): string {
  const stamp = file.exportedAt.replace(/[:.]/g, '-');
  const account = (file.accountId ?? 'unknown').replace(/[^\w-]/g, '_').slice(0, 40);
  return `session-log-${account}-${stamp}.json`;
}

/** Saves the log through a temporary <a download>: works on mobile browsers without any permission. */
export function downloadSessionLog(recorder: SessionRecorder, identity: LogIdentity, doc: Document = document): void {
  recorder.flush();
  const file = buildSessionLogFile(recorder, identity);
  const blob = new Blob([serializeSessionLogFile(file, recorder)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = doc.createElement('a');
  link.href = url;
  link.download = sessionLogFileName(file);
  link.style.display = 'none';
  doc.body.append(link);
  link.click();
  link.remove();
  // Some browsers start reading the blob after click() returns; give them time before revoking.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  log.info('session log downloaded', { entries: file.entries.length, dropped: file.dropped });
}
