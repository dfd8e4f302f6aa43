/** One line per event on stderr, prefixed by the part of the stand-in that speaks. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const quiet = process.env.STANDIN_QUIET === '1';

function write(level: string, scope: string, message: string, fields?: Record<string, unknown>): void {
  if (quiet && level === 'info') return;
  const extra = fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : '';
  process.stderr.write(`${new Date().toISOString()} ${level} [${scope}] ${message}${extra}\n`);
}

export function createLogger(scope: string): Logger {
  return {
    info: (m, f) => write('info', scope, m, f),
    warn: (m, f) => write('warn', scope, m, f),
    error: (m, f) => write('error', scope, m, f),
  };
}
