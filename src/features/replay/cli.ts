/**
 * The text timeline printed by `npm run replay -- file.json`: for a terminal
 * or to paste into a ticket. Times are relative to the log's start; each line
 * is one thing that happened: a page load, a state change, an error, a stats
 * level, a request. scripts/replay.ts is the thin Node entry point.
 */
import { createReplay, type ReplayOptions } from './engine.ts';
import { LogFileError, parseLogFile } from './parse.ts';
import { formatTime, type TimelineKind } from './timeline.ts';

const TAGS: Record<TimelineKind, string> = { load: 'LOAD', state: 'STATE', error: 'ERROR', stats: 'STATS', request: 'REQUEST' };

export interface CliResult {
  lines: string[];
  exitCode: number;
}

function field(state: unknown, slice: string, name: string): unknown {
  const s = (state as Record<string, Record<string, unknown> | undefined> | null)?.[slice];
  return s?.[name];
}

export function replayTimeline(text: string, options: ReplayOptions = {}): CliResult {
  let parsed;
  try {
    parsed = parseLogFile(text);
  } catch (error) {
    const reason = error instanceof LogFileError ? error.message : String(error);
    return { lines: [`Not a session log: ${reason}`], exitCode: 2 };
  }
  const { file, skipped } = parsed;
  const replay = createReplay(file, options);
  const lines: string[] = [
    `Session log started ${file.startedAt || '?'}, exported ${file.exportedAt || '?'}`,
    `App ${file.appVersion || '?'} (${file.environment || '?'}), account ${file.accountId ?? '?'}, device ${file.deviceId ?? '?'}`,
    `User agent: ${file.userAgent || '?'}`,
    `${file.entries.length} entries` +
      (file.dropped ? `, ${file.dropped} older entries dropped (replay starts from the state they left)` : '') +
      (skipped ? `, ${skipped} damaged entries skipped` : ''),
    '',
  ];
  const counts: Record<TimelineKind, number> = { load: 0, state: 0, error: 0, stats: 0, request: 0 };
  let lastQuality: string | null = null;
  replay.items.forEach((items, index) => {
    const entry = replay.entries[index];
    if (!entry) return;
    const source = entry.kind === 'action' ? `  [${entry.action.type}]` : '';
    for (const item of items) {
      counts[item.kind] += 1;
      if (item.kind === 'stats') lastQuality = item.text.split(' ')[1] ?? null;
      lines.push(`${formatTime(entry.t).padStart(11)}  ${TAGS[item.kind].padEnd(7)}  ${item.text}${source}`);
    }
  });
  const status = field(replay.finalState, 'session', 'status');
  const reason = field(replay.finalState, 'session', 'endReason');
  lines.push(
    '',
    `Summary: ${counts.error} errors, ${counts.state} state changes, ${counts.request} requests, page loads: ${counts.load}; ` +
      `last quality ${lastQuality ?? '—'}; final session ${String(status ?? '?')}` +
      (typeof reason === 'string' ? ` (last end reason: ${reason})` : ''),
  );
  return { lines, exitCode: 0 };
}
