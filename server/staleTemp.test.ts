import { mkdirSync, mkdtempSync, existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from './log.ts';
import { removeStaleSpeechDirs, STALE_AFTER_MS } from './staleTemp.ts';

let parent: string | null = null;
afterEach(() => {
  if (parent) rmSync(parent, { recursive: true, force: true });
  parent = null;
});

describe('stale speech work directories', () => {
  it('removes the ones untouched for an hour, and nothing else', async () => {
    parent = mkdtempSync(join(tmpdir(), 'stale-test-'));
    const old = join(parent, 'standin-speech-old');
    const fresh = join(parent, 'standin-speech-fresh');
    const other = join(parent, 'something-else-old');
    for (const dir of [old, fresh, other]) {
      mkdirSync(dir);
      writeFileSync(join(dir, 'grammar.jsgf'), '#JSGF');
    }
    const hourAgo = (Date.now() - STALE_AFTER_MS - 60_000) / 1000;
    utimesSync(old, hourAgo, hourAgo);
    utimesSync(other, hourAgo, hourAgo);
    expect(await removeStaleSpeechDirs(createLogger('test'), parent)).toBe(1);
    expect([existsSync(old), existsSync(fresh), existsSync(other)]).toEqual([false, true, true]);
  });
});
