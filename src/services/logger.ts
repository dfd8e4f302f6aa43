/**
 * The client's single logging choke point. Every feature logs through
 * `createLogger(feature)`; nothing else in src/ may touch `console`.
 *
 * Records go to the console (filtered by level) and to every registered sink
 * (unfiltered), so the session log can later record them without touching callers.
 * Under vitest the console is silent unless a test asks for it with setConsoleLevel.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type ConsoleLevel = LogLevel | 'silent';

export interface LogRecord {
  t: number;
  level: LogLevel;
  feature: string;
  message: string;
  data?: unknown;
  /** Set by Logger.event: a structured record of something seen outside (a request, a VAD event…). */
  event?: string;
}

export type LogSink = (record: LogRecord) => void;

export interface Logger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
  /** A structured outside-world event for the session log (sinks only; the console shows it at debug). */
  event(kind: string, data: Record<string, unknown>): void;
}

const RANK: Record<ConsoleLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

function runningUnderVitest(): boolean {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return Boolean(proc?.env?.VITEST);
}

function defaultConsoleLevel(): ConsoleLevel {
  if (runningUnderVitest()) return 'silent';
  // No import.meta.env outside Vite (a benchmark importing a service under Node).
  return import.meta.env?.DEV ? 'debug' : 'warn';
}

let consoleLevel: ConsoleLevel = defaultConsoleLevel();
const sinks = new Set<LogSink>();

export function setConsoleLevel(level: ConsoleLevel): void {
  consoleLevel = level;
}

/** Registers a sink that sees every record; returns the function that removes it. */
export function addLogSink(sink: LogSink): () => void {
  sinks.add(sink);
  return () => {
    sinks.delete(sink);
  };
}

function emit(record: LogRecord): void {
  for (const sink of sinks) {
    try {
      sink(record);
    } catch {
      // A broken sink must never break the code that logs.
    }
  }
  if (RANK[record.level] < RANK[consoleLevel]) return;
  const line = `[${record.feature}] ${record.message}`;
  const args = record.data === undefined ? [line] : [line, record.data];
  /* eslint-disable no-console -- this module is the one place allowed to write to the console */
  switch (record.level) {
    case 'debug':
      console.debug(...args);
      break;
    case 'info':
      console.info(...args);
      break;
    case 'warn':
      console.warn(...args);
      break;
    case 'error':
      console.error(...args);
      break;
  }
  /* eslint-enable no-console */
}

export function createLogger(feature: string): Logger {
  const log = (level: LogLevel) => (message: string, data?: unknown) => {
    const record: LogRecord = { t: Date.now(), level, feature, message };
    if (data !== undefined) record.data = data;
    emit(record);
  };
  const event = (kind: string, data: Record<string, unknown>) => {
    emit({ t: Date.now(), level: 'debug', feature, message: kind, data, event: kind });
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), event };
}
