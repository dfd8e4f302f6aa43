import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { precompressDir } from './precompress.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('precompressDir', () => {
  it('writes .br and .gz beside compressible files that decode to the same bytes, and leaves the rest', async () => {
    dir = mkdtempSync(join(tmpdir(), 'precompress-'));
    const out = join(dir, 'dist');
    mkdirSync(join(out, 'assets'), { recursive: true });
    const js = Buffer.from('export const x = 1;\n'.repeat(500));
    writeFileSync(join(out, 'assets', 'index-abc.js'), js);
    writeFileSync(join(out, 'assets', 'ort-abc.wasm'), Buffer.alloc(50_000, 7));
    writeFileSync(join(out, 'assets', 'tiny-abc.js'), 'x');
    writeFileSync(join(out, 'photo.png'), Buffer.alloc(50_000, 1));

    const first = await precompressDir(out, join(dir, 'cache'));
    expect(brotliDecompressSync(readFileSync(join(out, 'assets', 'index-abc.js.br')))).toEqual(js);
    expect(gunzipSync(readFileSync(join(out, 'assets', 'index-abc.js.gz')))).toEqual(js);
    expect(existsSync(join(out, 'assets', 'ort-abc.wasm.br'))).toBe(true);
    expect(existsSync(join(out, 'assets', 'tiny-abc.js.br'))).toBe(false);
    expect(existsSync(join(out, 'photo.png.br'))).toBe(false);
    expect(first).toHaveLength(4);

    // A rebuild of the same bytes comes from the cache and gives the same files.
    rmSync(join(out, 'assets', 'index-abc.js.br'));
    await precompressDir(out, join(dir, 'cache'));
    expect(brotliDecompressSync(readFileSync(join(out, 'assets', 'index-abc.js.br')))).toEqual(js);
  });
});
