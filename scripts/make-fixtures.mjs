#!/usr/bin/env node
/**
 * Makes the test audio in tests/fixtures/ (gitignored *.wav): the four contract questions
 * spoken by espeak-ng, a two-question "call" and plain silence, all 16 kHz mono 16-bit PCM.
 *
 * Plain Node, no dependencies, so it runs before `npm install` has finished and from any
 * test's beforeAll. A file is rebuilt only when the hash of what it is made from (texts,
 * voice, speed, layout, espeak-ng version) differs from the one recorded when it was made.
 *
 * No 48 kHz variants: Chromium's --use-file-for-fake-audio-capture converts a WAV of any
 * rate to the capture format itself. It loops the file unless the path ends in "%noloop".
 *
 * Usage: node scripts/make-fixtures.mjs [--out DIR] [--force]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const RATE = 16_000;
const VOICE = 'en-us';
const SPEED = 150;
/** Bumped whenever the way a file is made changes, so old files are rebuilt. */
const RECIPE_VERSION = 1;

/** The questions of docs/contract.md C10, with the file each one is spoken into. */
const QUESTIONS = [
  { file: 'q-nearest-store.wav', text: 'where is the nearest store' },
  { file: 'q-opening-hours.wav', text: 'what are your opening hours' },
  { file: 'q-discount.wav', text: 'tell me about the discount' },
  { file: 'q-new-products.wav', text: 'show me the new products' },
];

/** Files made of silence and spoken questions: numbers are seconds of silence, strings are texts. */
const COMPOSED = [
  { file: 'call-two-questions.wav', parts: [1, QUESTIONS[0].text, 2, QUESTIONS[1].text, 3] },
  { file: 'silence-3s.wav', parts: [3] },
  // A turn (docs/decisions.md D8): one question with a pause inside, between espeak-ng's two
  // halves (each ends on its own 0.39 s of quiet, so the silence heard is the pause + 0.39 s);
  // the same question stopped after "where is the"; two questions 3 s apart.
  ...[0.5, 0.9, 1.3].map((pause) => ({ file: `turn-pause-${pause}.wav`, parts: ['where is the', pause, 'nearest store'] })),
  { file: 'turn-stop.wav', parts: ['where is the'] },
  { file: 'turn-two-questions.wav', parts: [QUESTIONS[0].text, 3, QUESTIONS[1].text] },
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const args = { out: join(root, 'tests', 'fixtures'), force: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && argv[i + 1]) args.out = resolve(argv[++i]);
    else if (argv[i] === '--force') args.force = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: make-fixtures.mjs [--out DIR] [--force])`);
  }
  return args;
}

function run(cmd, args) {
  const res = spawnSync(cmd, args, { encoding: 'buffer' });
  if (res.error) throw new Error(`${cmd} could not run: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.status}): ${res.stderr.toString().trim()}`);
  return res.stdout;
}

function has(cmd) {
  return !spawnSync(cmd, ['--version'], { stdio: 'ignore' }).error;
}

/** PCM samples of one spoken text at RATE, without any WAV header. */
function speak(text, workDir) {
  const raw = join(workDir, 'espeak.wav');
  const pcm = join(workDir, 'speech.raw');
  run('espeak-ng', ['-v', VOICE, '-s', String(SPEED), '-w', raw, text]);
  // ffmpeg is what `npm start` installs; sox is accepted where it is the only one there.
  if (has('ffmpeg')) {
    run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', raw, '-ar', String(RATE), '-ac', '1', '-f', 's16le', '-c:a', 'pcm_s16le', pcm]);
  } else if (has('sox')) {
    run('sox', [raw, '-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed-integer', '-t', 'raw', pcm]);
  } else {
    throw new Error('neither ffmpeg nor sox is installed (apt-get install ffmpeg)');
  }
  return readFileSync(pcm);
}

/** Tests may run this script from several workers at once: readers never see half a file. */
function writeAtomic(target, data) {
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, target);
}

function wav(pcm) {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

function compose(parts, workDir) {
  return Buffer.concat(parts.map((p) => (typeof p === 'number' ? Buffer.alloc(Math.round(p * RATE) * 2) : speak(p, workDir))));
}

function main() {
  const { out, force } = parseArgs(process.argv.slice(2));
  if (!has('espeak-ng')) throw new Error('espeak-ng is not installed (apt-get install espeak-ng)');
  mkdirSync(out, { recursive: true });
  // `.cache/` is gitignored, so the record of what each file was made from stays out of git.
  const hashFile = join(out, '.cache', 'make-fixtures.json');
  const hashes = existsSync(hashFile) ? JSON.parse(readFileSync(hashFile, 'utf8')) : {};
  const espeakVersion = run('espeak-ng', ['--version']).toString().trim();
  const workDir = mkdtempSync(join(tmpdir(), 'make-fixtures-'));
  let made = 0;
  try {
    for (const { file, parts } of [...QUESTIONS.map((q) => ({ file: q.file, parts: [q.text] })), ...COMPOSED]) {
      const inputs = JSON.stringify({ RECIPE_VERSION, RATE, VOICE, SPEED, espeakVersion, parts });
      const hash = createHash('sha256').update(inputs).digest('hex');
      const target = join(out, file);
      if (!force && existsSync(target) && hashes[file] === hash) continue;
      writeAtomic(target, wav(compose(parts, workDir)));
      hashes[file] = hash;
      made++;
      process.stdout.write(`made ${target}\n`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  mkdirSync(dirname(hashFile), { recursive: true });
  writeAtomic(hashFile, JSON.stringify(hashes, null, 2) + '\n');
  process.stdout.write(`fixtures ready in ${out} (${made} made)\n`);
}

try {
  main();
} catch (err) {
  process.stderr.write(`make-fixtures: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
