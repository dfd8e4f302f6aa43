import { describe, expect, it } from 'vitest';
import type { ActionEntry, ExternalEntry, LogEntry } from '../sessionLog/types.ts';
import { describeEntry, entrySummary } from './timeline.ts';

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

describe('describeEntry: stats', () => {
  const sampled = at({ kind: 'action', action: { type: 'stats/statsSampled' } });
  const sample = { upKbps: 5, downKbps: 1250, lossPct: 0.55, jitterMs: 12, rttMs: 46, quality: 'excellent' };
  const withCurrent = (current: unknown) => ({ stats: { current } });
  const text = (current: unknown) => describeEntry(sampled, withCurrent(null), withCurrent(current))[0]?.text;

  it('adds the route when the sample has one', () => {
    expect(text({ ...sample, candidateType: 'relay' })).toBe(
      'quality excellent (down 1250 kbps, up 5 kbps, loss 0.55%, jitter 12 ms, RTT 46 ms, route relay)',
    );
  });

  it('leaves it out for samples without one (older logs, no pair yet) and for unknown words', () => {
    const plain = 'quality excellent (down 1250 kbps, up 5 kbps, loss 0.55%, jitter 12 ms, RTT 46 ms)';
    expect(text(sample)).toBe(plain);
    expect(text({ ...sample, candidateType: null })).toBe(plain);
    expect(text({ ...sample, candidateType: '<b>x</b>' })).toBe(plain);
  });
});
