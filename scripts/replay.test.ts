import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
