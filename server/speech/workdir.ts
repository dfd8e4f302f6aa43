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
 */
import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../log.ts';

const log = createLogger('speech');

export const WORK_DIR_PREFIX = 'standin-speech-';

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
    const dir = new WorkDir(await mkdtemp(join(parent, WORK_DIR_PREFIX)), { ...files });
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
