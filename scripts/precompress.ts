/**
 * A Vite build plugin that writes `NAME.br` and `NAME.gz` beside every compressible
 * file of the build (hashed assets, the onnxruntime wasm, the VAD model, index.html),
 * so the stand-in (sirv's `brotli`/`gzip` options) and a real web server (nginx's
 * `brotli_static`/`gzip_static`) send them with `Content-Encoding` and never compress
 * per request. Brotli at its best quality: the files are compressed once per build.
 *
 * The 14 MB wasm takes brotli 11 tens of seconds on a slow core, and every test run
 * builds the app, so results are cached by content (`.cache/precompress/`): a rebuild
 * of unchanged files compresses nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Text and binary formats that compress; images, audio and video already are. */
export const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|wasm|onnx|map|txt|xml|webmanifest)$/;
/** Below this a compressed copy saves less than its headers cost. */
export const MIN_BYTES = 1024;

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

async function compressed(data: Buffer, encoding: 'br' | 'gz', binary: boolean, cacheDir: string): Promise<Buffer> {
  const key = createHash('sha256').update(`${encoding}:${binary}:`).update(data).digest('hex');
  const cached = join(cacheDir, `${key}.${encoding}`);
  if (existsSync(cached)) return readFileSync(cached);
  const out =
    encoding === 'br'
      ? await brotli(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            [constants.BROTLI_PARAM_MODE]: binary ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
          },
        })
      : await gz(data, { level: 9 });
  writeFileSync(cached, out);
  return out;
}

/** Compresses every compressible file under `outDir`; returns the files written. */
export async function precompressDir(outDir: string, cacheDir: string): Promise<string[]> {
  mkdirSync(cacheDir, { recursive: true });
  const written: string[] = [];
  for (const file of [...filesUnder(outDir)]) {
    if (!COMPRESSIBLE.test(file) || statSync(file).size < MIN_BYTES) continue;
    const data = readFileSync(file);
    for (const encoding of ['br', 'gz'] as const) {
      const out = await compressed(data, encoding, /\.(wasm|onnx)$/.test(file), cacheDir);
      // A copy that is not smaller would only cost the server a lookup.
      if (out.length >= data.length) continue;
      writeFileSync(`${file}.${encoding}`, out);
      written.push(`${file}.${encoding}`);
    }
  }
  return written;
}

export function precompress(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    async closeBundle() {
      const outDir = resolve(config.root, config.build.outDir);
      if (!existsSync(outDir)) return;
      const written = await precompressDir(outDir, join(config.root, '.cache', 'precompress'));
      config.logger.info(`precompress: ${written.length} .br/.gz files`);
    },
  };
}
