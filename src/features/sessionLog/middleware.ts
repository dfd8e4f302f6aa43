/**
 * The session log's Redux middleware: records every plain action before the
 * reducers see it, so nested puts from sagas land after the action that caused
 * them, in the order the reducers ran. Handles the download request too,
 * because this is where the recorder and the account ids both are.
 */
import { createAction, isAction, type Middleware } from '@reduxjs/toolkit';
import { createLogger } from '../../services/logger.ts';
import { downloadSessionLog, identityFromState, type LogIdentity } from './exportLog.ts';
import type { SessionRecorder } from './recorder.ts';

const log = createLogger('sessionLog');

/** The stats panel's "Download session log" button and the debug hotkey dispatch this. */
export const sessionLogDownloadRequested = createAction('sessionLog/downloadRequested');

export interface SessionLogMiddlewareOptions {
  /** Replaces the browser download (tests). */
  download?: (recorder: SessionRecorder, identity: LogIdentity) => void;
}

export function createSessionLogMiddleware(
  recorder: SessionRecorder,
  options: SessionLogMiddlewareOptions = {},
): Middleware {
  const download = options.download ?? downloadSessionLog;
  return (api) => {
    // The store's state before any action: page load (or reload) starts here.
    recorder.recordStore(api.getState());
    return (next) => (action) => {
      // Thunks and other non-actions never reach the reducers; nothing to replay.
      if (!isAction(action)) return next(action);
      try {
        recorder.recordAction(action);
      } catch (error) {
        log.error('could not record action', { type: action.type, error: String(error) });
      }
      const result = next(action);
      if (sessionLogDownloadRequested.match(action)) {
        try {
          download(recorder, identityFromState(api.getState()));
        } catch (error) {
          log.error('session log download failed', { error: String(error) });
        }
      }
      return result;
    };
  };
}
