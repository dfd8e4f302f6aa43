/**
 * The files pocketsphinx reads (grammars, the grammar dictionary) and writes (one
 * utterance's audio and results), in a directory that belongs to one recognizer.
 *
 * Each recognizer makes its own with mkdtemp and only its own close() removes it, so
 * parallel services and tests never share or delete each other's files. /tmp is still
 * not ours alone: tmp cleaners and careless `rm -rf /tmp/standin-*` happen, and the
 * files used to be written once at startup, after which every decode failed for the
 * rest of the process. So ensure() runs before every decode and puts back whatever
 * vanished.
 *
 * A process that dies without close() (a crash, SIGKILL) leaves its directory behind. The
 * name carries the owner's pid, so every new one first removes those whose owner is gone.
 */
import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../log.ts';

const log = createLogger('speech');

export const WORK_DIR_PREFIX = 'standin-speech-';
/** Directories named before the pid was part of the name: removed once this old. */
const UNOWNED_MAX_AGE_MS = 24 * 60 * 60 * 1000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the work directories under `parent` whose process is gone; returns their names. */
export async function removeStaleWorkDirs(parent: string): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(WORK_DIR_PREFIX)) continue;
    const pid = /^(\d+)-/.exec(name.slice(WORK_DIR_PREFIX.length))?.[1];
    const path = join(parent, name);
    if (pid !== undefined) {
      if (processAlive(Number(pid))) continue;
    } else {
      const info = await stat(path).catch(() => null);
      if (!info?.isDirectory() || Date.now() - info.mtimeMs < UNOWNED_MAX_AGE_MS) continue;
    }
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  if (removed.length > 0) log.info('removed speech work directories left by processes that are gone', { parent, removed: removed.length });
  return removed;
}

export class WorkDir {
  private removed = false;
  private seq = 0;

  private constructor(
    readonly path: string,
    private readonly files: Readonly<Record<string, string>>,
  ) {}

  /** A new directory under `parent` (default: the OS temp dir) holding `files`. */
  static async create(files: Record<string, string>, parent = tmpdir()): Promise<WorkDir> {
    await mkdir(parent, { recursive: true });
    await removeStaleWorkDirs(parent);
    const dir = new WorkDir(await mkdtemp(join(parent, `${WORK_DIR_PREFIX}${process.pid}-`)), { ...files });
    await dir.ensure();
    return dir;
  }

  file(name: string): string {
    return join(this.path, name);
  }

  /** A name no other decode of this process uses, for one utterance's files. */
  nextName(): string {
    return `utt-${++this.seq}`;
  }

  /** Re-creates the directory and any of its files that vanished; true if anything had to be restored. */
  async ensure(): Promise<boolean> {
    if (this.removed) throw new Error('speech work directory already removed');
    const madeDir = (await mkdir(this.path, { recursive: true })) !== undefined;
    let restored = madeDir;
    for (const [name, content] of Object.entries(this.files)) {
      const target = this.file(name);
      if (!madeDir && (await access(target).then(() => true, () => false))) continue;
      // Written aside and renamed: a decode starting meanwhile never reads half a file.
      const tmp = `${target}.${randomUUID()}.tmp`;
      await writeFile(tmp, content);
      await rename(tmp, target);
      restored = true;
    }
    if (restored && this.seq > 0) log.warn('speech work directory was removed from under the service: restored', { path: this.path });
    return restored;
  }

  /** Removes the directory; later ensure() calls fail. */
  async remove(): Promise<void> {
    this.removed = true;
    await rm(this.path, { recursive: true, force: true });
  }
}
