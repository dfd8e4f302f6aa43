/**
 * The built chunks, told apart by what their source maps say they hold (file names carry
 * only the bundler's choice of a module's name): the end-to-end tests and the
 * presession-bundle benchmark find the live chunk this way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The live chunk's modules: its entry's re-exports map to no code, so its sagas' root and its view. */
export const LIVE_ENTRY = /src\/(live\/|sagas\/liveSaga\.ts$)/;

/** The script files of `assetsDir` whose source maps list a source matching `source`. */
export function chunksHolding(assetsDir: string, source: RegExp): string[] {
  return readdirSync(assetsDir)
    .filter((file) => file.endsWith('.js.map'))
    .filter((file) => (JSON.parse(readFileSync(join(assetsDir, file), 'utf8')) as { sources: string[] }).sources.some((s) => source.test(s)))
    .map((file) => file.replace(/\.map$/, ''));
}

/** The live chunk's scripts, and the stylesheets the bundler emitted for them (named after the same chunk). */
export function liveChunkFiles(assetsDir: string): { scripts: string[]; styles: string[] } {
  const scripts = chunksHolding(assetsDir, LIVE_ENTRY);
  const names = new Set(scripts.map((file) => file.replace(/-[\w-]{8}\.js$/, '')));
  const styles = readdirSync(assetsDir).filter((file) => file.endsWith('.css') && names.has(file.replace(/-[\w-]{8}\.css$/, '')));
  return { scripts, styles };
}
