import { addLogSink, type LogRecord } from '../../services/logger.ts';
import type { SessionRecorder } from './recorder.ts';
import { EXTERNAL_KINDS, type ExternalKind } from './types.ts';

function isExternalKind(kind: string | undefined): kind is ExternalKind {
  return (EXTERNAL_KINDS as readonly (string | undefined)[]).includes(kind);
}

/**
 * Sends the client logger's structured events (Logger.event: requests, VAD and
 * recognizer events…) and its info, warning and error lines to the session log
 * (errors as `error` entries, the others as `log` entries with their level).
 * Info lines are the lifecycle a support person needs and no action carries:
 * why a socket closed (code and reason), reconnect attempts, why a session
 * ended, the page being hidden; a few per session. Debug stays out: it is
 * chatty. Returns the disconnector.
 */
export function connectLoggerToRecorder(recorder: SessionRecorder): () => void {
  return addLogSink((record: LogRecord) => {
    if (isExternalKind(record.event)) {
      recorder.recordExternal(record.event, { feature: record.feature, ...(record.data as Record<string, unknown>) });
      return;
    }
    if (record.level === 'debug') return;
    // The session log's own lines would only echo what it did or could not do.
    if (record.feature === 'sessionLog') return;
    const data: Record<string, unknown> = { feature: record.feature, message: record.message };
    if (record.level !== 'error') data.level = record.level;
    if (record.data !== undefined) data.data = record.data;
    recorder.recordExternal(record.level === 'error' ? 'error' : 'log', data);
  });
}
