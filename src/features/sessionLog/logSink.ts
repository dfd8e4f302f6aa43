import { addLogSink, type LogRecord } from '../../services/logger.ts';
import type { SessionRecorder } from './recorder.ts';
import { EXTERNAL_KINDS, type ExternalKind } from './types.ts';

function isExternalKind(kind: string | undefined): kind is ExternalKind {
  return (EXTERNAL_KINDS as readonly (string | undefined)[]).includes(kind);
}

/**
 * Sends the client logger's structured events (Logger.event: requests, VAD and
 * recognizer events…) and its warnings and errors to the session log (errors as
 * `error` entries, warnings as `log` entries). Debug and info stay out: they
 * are chatty and the actions already tell the story. Returns the disconnector.
 */
export function connectLoggerToRecorder(recorder: SessionRecorder): () => void {
  return addLogSink((record: LogRecord) => {
    if (isExternalKind(record.event)) {
      recorder.recordExternal(record.event, { feature: record.feature, ...(record.data as Record<string, unknown>) });
      return;
    }
    if (record.level !== 'warn' && record.level !== 'error') return;
    // The session log's own complaints would only echo what it could not do.
    if (record.feature === 'sessionLog') return;
    const data: Record<string, unknown> = { feature: record.feature, message: record.message };
    if (record.data !== undefined) data.data = record.data;
    recorder.recordExternal(record.level === 'error' ? 'error' : 'log', data);
  });
}
