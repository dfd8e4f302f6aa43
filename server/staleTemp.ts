/**
 * The speech service's work directories (`standin-speech-*` in the temp folder) are removed
 * by the service when it closes, which a crash or a `kill -9` never lets it do. So a stand-in
 * starting up removes those left behind: the ones nothing has written to for an hour. A
 * directory of another stand-in still running is younger than that while it is in use, and
 * one idle for longer is put back by its owner before its next decode (server/speech/workdir.ts).
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from './log.ts';
import { WORK_DIR_PREFIX } from './speech/workdir.ts';

export const STALE_AFTER_MS = 60 * 60 * 1000;

/** Removes stale speech work directories under `parent`; returns how many. Never throws. */
export async function removeStaleSpeechDirs(log: Logger, parent = tmpdir(), staleAfterMs = STALE_AFTER_MS): Promise<number> {
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(WORK_DIR_PREFIX)) continue;
    const path = join(parent, name);
    try {
      const info = await stat(path);
      if (!info.isDirectory() || Date.now() - info.mtimeMs < staleAfterMs) continue;
      await rm(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone meanwhile, or not ours to remove: leave it.
    }
  }
  if (removed > 0) log.info('removed speech work directories left by an earlier stand-in', { removed });
  return removed;
}
