import { describe, expect, it } from 'vitest';
import { replayTimeline } from './cli.ts';
import log from './fixtures/session-log.json';

const fixture = JSON.stringify(log);

describe('replay CLI timeline', () => {
  const { lines, exitCode } = replayTimeline(fixture);
  const text = lines.join('\n');

  it('prints the header: when, which app, account and device', () => {
    expect(exitCode).toBe(0);
    expect(lines[0]).toBe('Session log started 2025-06-03T09:41:07.250Z, exported 2025-06-03T09:41:47.250Z');
    expect(lines[1]).toBe('App 1.0.0 (local), account demo, device H5f00dfeed0000000000000000000001');
    expect(text).toContain('48 entries');
  });

  it('prints state changes with their relative times and action types', () => {
    expect(lines).toContain('   0:03.284  STATE    session idle → connecting  [session/startRequested]');
    expect(lines).toContain('   0:03.854  STATE    signaling connecting → open  [session/signalingStateChanged]');
    expect(lines).toContain('   0:14.204  STATE    media connected → disconnected  [session/mediaStateChanged]');
    expect(lines).toContain('   0:16.204  STATE    media reconnect #1  [session/mediaReconnectStarted]');
    // The visitor's reconnect hint, from the drop until the session ended (this old log has no mediaReconnected).
    expect(lines).toContain('   0:16.204  STATE    reconnect hint shown  [session/mediaReconnectStarted]');
    expect(lines).toContain('   0:29.904  STATE    reconnect hint gone  [session/sessionEnding]');
    expect(lines).toContain('   0:29.904  STATE    session live → ending (iceError)  [session/sessionEnding]');
  });

  it('prints errors: alerts and toasts by message id or text, and logged errors', () => {
    expect(lines).toContain('   0:29.904  ERROR    alert error.iceError  [notices/alertShown]');
    expect(lines).toContain('   0:23.404  ERROR    alert "no avatar available"  [notices/alertShown]');
    expect(lines).toContain('   0:24.904  ERROR    toast error.noVoice  [notices/toastShown]');
    expect(lines).toContain('   0:29.904  ERROR    error media: ICE failed');
  });

  it('prints stats quality levels as they change, and requests', () => {
    expect(text).toMatch(/0:12\.204 {2}STATS {4}quality excellent \(down 1250 kbps, up 5 kbps, loss 0\.55%, jitter 12 ms, RTT 46 ms\)/);
    expect(text).toMatch(/0:22\.204 {2}STATS {4}quality fair \(down 400 kbps/);
    // the first sample has no level yet: nothing to report
    expect(text).not.toContain('0:07.204  STATS');
    expect(text).toContain('REQUEST  request POST /start_live → 200 ok 130 ms');
  });

  it('ends with a summary', () => {
    expect(lines.at(-1)).toBe(
      'Summary: 5 errors, 27 state changes, 5 requests, page loads: 1; last quality fair; final session idle (last end reason: iceError)',
    );
  });

  it('refuses what is not a session log, saying why', () => {
    expect(replayTimeline('nope')).toEqual({ lines: ['Not a session log: not JSON'], exitCode: 2 });
    expect(replayTimeline('{"schemaVersion":7,"entries":[]}').lines[0]).toBe(
      'Not a session log: unsupported schema version 7 (this viewer reads 1)',
    );
  });
});
