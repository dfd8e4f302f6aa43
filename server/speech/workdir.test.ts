import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORK_DIR_PREFIX, WorkDir } from './workdir.ts';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  if (!child.pid) throw new Error('could not start a child process');
  return child.pid;
}

describe('speech work directories after a crash', () => {
  let parent: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'workdir-test-'));
  });
  afterEach(() => {
    rmSync(parent, { recursive: true, force: true });
  });

  it('removes the directories of processes that are gone when a new one is made, and keeps the living', async () => {
    const dead = `${WORK_DIR_PREFIX}${deadPid()}-abc123`;
    const living = `${WORK_DIR_PREFIX}${process.ppid}-def456`;
    const unownedOld = `${WORK_DIR_PREFIX}Xy12Zq`;
    const unownedNew = `${WORK_DIR_PREFIX}Ab34Cd`;
    for (const name of [dead, living, unownedOld, unownedNew]) mkdirSync(join(parent, name, 'sub'), { recursive: true });
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(join(parent, unownedOld), twoDaysAgo, twoDaysAgo);

    const dir = await WorkDir.create({ 'a.txt': 'a' }, parent);
    const left = readdirSync(parent);
    expect(left).not.toContain(dead);
    expect(left).not.toContain(unownedOld);
    expect(left).toEqual(expect.arrayContaining([living, unownedNew]));
    expect(dir.path).toContain(`${WORK_DIR_PREFIX}${process.pid}-`);
    await dir.remove();
    expect(existsSync(dir.path)).toBe(false);
  });

  it('leaves a crashed process directory for the next start to clean', async () => {
    // A child makes its directory and dies without close(), as a crash would.
    const script = `import { WorkDir } from ${JSON.stringify(new URL('./workdir.ts', import.meta.url).href)};
      await WorkDir.create({ 'g.jsgf': 'x' }, ${JSON.stringify(parent)}); process.exit(1);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(1);
    const orphans = readdirSync(parent).filter((n) => n.startsWith(WORK_DIR_PREFIX));
    expect(orphans).toHaveLength(1);
    const dir = await WorkDir.create({ 'g.jsgf': 'x' }, parent);
    expect(readdirSync(parent)).toEqual([dir.path.slice(parent.length + 1)]);
    await dir.remove();
  });
});
