import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'replay-cli-'));

function run(...args: string[]) {
  return spawnSync(TSX, ['scripts/replay.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('npm run replay -- file.json', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the timeline of a session log with the real reducers', () => {
    const result = run('src/features/replay/fixtures/session-log.json');
    expect(result.stderr).not.toContain('replay failed');
    expect(result.status).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('   0:03.284  STATE    session idle → connecting  [session/startRequested]');
    expect(lines).toContain('   0:29.904  ERROR    alert error.iceError  [notices/alertShown]');
    expect(result.stdout).toMatch(/STATS {4}quality fair/);
    expect(result.stdout).toContain('final session idle (last end reason: iceError)');
  });

  it('prints a hostile log\'s strings with every control and direction character made visible, never raw', () => {
    const log = JSON.parse(readFileSync(join(ROOT, 'src/features/replay/fixtures/session-log.json'), 'utf8')) as {
      userAgent: string;
      deviceId: string;
      entries: { kind: string; action?: { type: string; payload?: { message?: { text: string } } }; data?: Record<string, unknown> }[];
    };
    // A window title (OSC 0), a clipboard write (OSC 52), a clear screen, a CR that fakes a line,
    // a C1 CSI (\x9b), a bidi override (U+202E), a newline, a bell.
    log.userAgent = 'Mozilla/5.0\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H';
    log.deviceId = 'H5evil\r   0:00.000  STATE    all good\n';
    const alert = log.entries.find((e) => e.action?.type === 'notices/alertShown' && e.action.payload?.message?.text)!;
    alert.action!.payload!.message!.text = 'no avatar \u202eelbaliava\u202c \x9b31m red';
    log.entries.push({ kind: 'error', data: { feature: 'media\x1b[8m', message: 'ICE \x1b]8;;http://evil.example\x07failed' }, ...{ seq: 9_999, t: 40_000 } });
    const hostile = join(dir, 'hostile.json');
    writeFileSync(hostile, JSON.stringify(log));
    const result = run(hostile);
    expect(result.status).toBe(0);
    const printed = result.stdout + result.stderr;
    // No raw C0 (but the lines' own newlines), DEL, C1 or direction character reaches the terminal.
    // eslint-disable-next-line no-control-regex -- what must not be printed
    expect(printed.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('User agent: Mozilla/5.0\\x1b]0;pwned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x1b[H');
    expect(lines.find((l) => l.startsWith('App '))).toContain('device H5evil\\x0d   0:00.000  STATE    all good\\x0a');
    // A server's alert text is printed as JSON (quoted, so it is not read as a message id).
    expect(result.stdout).toContain(String.raw`ERROR    alert "no avatar \\u202eelbaliava\\u202c \\x9b31m red"`);
    expect(result.stdout).toContain('error media\\x1b[8m: ICE \\x1b]8;;http://evil.example\\x07failed');
    // A file name is printed the same way.
    const named = run(join(dir, 'gone\x1b[2J.json'));
    expect(named.stderr).toContain('gone\\x1b[2J.json');
    expect(named.stderr).not.toContain('\x1b');
  });

  it('exits 2 with a reason for a file that is not a session log, or no file', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"hello":1}');
    const result = run(bad);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Not a session log: unsupported schema version null');
    expect(run().status).toBe(2);
    expect(run(join(dir, 'missing.json')).stderr).toContain('cannot read');
  });
});
