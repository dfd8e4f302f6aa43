import { describe, expect, it } from 'vitest';
import type { ActionEntry, ExternalEntry, LogEntry } from '../sessionLog/types.ts';
import { entrySummary } from './timeline.ts';

type Entry = Omit<ActionEntry, 'seq' | 't'> | Omit<ExternalEntry, 'seq' | 't'>;
const at = (entry: Entry): LogEntry => ({ seq: 1, t: 10, ...entry });

describe('entrySummary: one line per entry in the viewer’s side list', () => {
  it('reads a client log line as a log line, with its level, feature and data', () => {
    const warn = at({ kind: 'log', data: { feature: 'media', level: 'warn', message: 'media dropped', data: { state: 'disconnected' } } });
    expect(entrySummary(warn)).toBe('warn media: media dropped {"state":"disconnected"}');
    expect(entrySummary(at({ kind: 'error', data: { feature: 'saga', message: 'stats saga crashed' } }))).toBe('error saga: stats saga crashed');
  });

  it('keeps other external entries as their JSON, cut at 100 characters', () => {
    expect(entrySummary(at({ kind: 'ice', data: { state: 'checking' } }))).toBe('ice {"state":"checking"}');
    const long = entrySummary(at({ kind: 'vad', data: { text: 'x'.repeat(200) } }));
    expect(long).toHaveLength(100);
    expect(long.endsWith('…')).toBe(true);
  });

  it('names actions by type and requests by what they asked and got', () => {
    expect(entrySummary(at({ kind: 'action', action: { type: 'session/mediaReconnectStarted' } }))).toBe('session/mediaReconnectStarted');
    const request = at({ kind: 'request', data: { method: 'POST', url: '/start_live', status: 200, outcome: 'ok', ms: 42 } });
    expect(entrySummary(request)).toBe('request POST /start_live → 200 ok 42 ms');
  });
});
