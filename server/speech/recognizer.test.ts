/** Real pocketsphinx on espeak-ng audio: the grammar pass, the free fallback, partials and kills. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { questions } from '../replies/knowledge.ts';
import { createRecognizer, parseHyp, type Recognizer } from './recognizer.ts';
import { ensureFixtures, fixturePcm, QUESTION_FIXTURES } from './testing.ts';
import { parseWaveHeader } from './wav.ts';

function samples(pcm: Buffer): Int16Array {
  const copy = Buffer.from(pcm);
  return new Int16Array(copy.buffer, copy.byteOffset, copy.length / 2);
}

/** A sentence outside the knowledge base, spoken like the fixtures. */
function speak(text: string, dir: string): Int16Array {
  const raw = join(dir, 'raw.wav');
  const out = join(dir, 'out.wav');
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, text]);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', raw, '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', '-fflags', '+bitexact', '-map_metadata', '-1', out]);
  return samples(parseWaveHeader(readFileSync(out)).data);
}

function childCommands(): string[] {
  const ps = spawnSync('ps', ['--ppid', String(process.pid), '-o', 'comm='], { encoding: 'utf8' });
  return ps.stdout.split('\n').filter(Boolean);
}

describe('pocketsphinx recognizer', () => {
  let recognizer: Recognizer;
  let dir: string;
  const signal = new AbortController().signal;

  beforeAll(() => {
    ensureFixtures();
    dir = mkdtempSync(join(tmpdir(), 'speech-test-'));
    recognizer = createRecognizer({ questions: questions('en') });
  });

  afterAll(async () => {
    await recognizer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ready with the installed model', async () => {
    expect(await recognizer.ready()).toBeNull();
  });

  it.each(QUESTION_FIXTURES)('decodes $file with the grammar, word for word', async ({ file, text }) => {
    expect(await recognizer.decode(samples(fixturePcm(file)), 'final', signal)).toEqual({ text, source: 'grammar' });
  });

  it('falls back to the language model when the grammar leaves speech unexplained', async () => {
    // The grammar alone answers "what is new" here, padding the rest with silence.
    const result = await recognizer.decode(speak('what is the weather like tomorrow', dir), 'final', signal);
    expect(result.source).toBe('lm');
    expect(result.text).not.toBe('');
    expect(questions('en')).not.toContain(result.text);
  });

  it('decodes the start of a question as a prefix of it', async () => {
    const pcm = fixturePcm('q-nearest-store.wav');
    const result = await recognizer.decode(samples(pcm.subarray(0, 16_000 * 2 * 0.8)), 'partial', signal);
    expect(result.source).toBe('grammar');
    expect(result.text.length).toBeGreaterThan(0);
    // Another question may share the start ("where is your store"); any question's prefix will do.
    expect(questions('en').some((q) => `${q} `.startsWith(`${result.text} `))).toBe(true);
    expect(result.text.startsWith('where')).toBe(true);
  });

  it('returns nothing for silence', async () => {
    expect((await recognizer.decode(new Int16Array(16_000), 'final', signal)).text).toBe('');
  });

  it('kills pocketsphinx when the decode is aborted', async () => {
    const abort = new AbortController();
    const long = samples(Buffer.concat(Array.from({ length: 6 }, () => fixturePcm('call-two-questions.wav'))));
    const pending = recognizer.decode(long, 'final', abort.signal);
    // Wait until the child exists (slow on a busy machine), then pull the plug.
    await expect.poll(childCommands, { timeout: 15_000, interval: 50 }).toContain('pocketsphinx_ba');
    abort.abort(new Error('socket closed'));
    await expect(pending).rejects.toThrow();
    await expect.poll(childCommands, { timeout: 5000, interval: 50 }).not.toContain('pocketsphinx_ba');
  });

  it('reports why when pocketsphinx is missing, and decodes to nothing', async () => {
    const broken = createRecognizer({ questions: ['hello'], model: { batch: '/nonexistent/pocketsphinx_batch' } });
    expect(await broken.ready()).toMatch(/pocketsphinx unavailable/);
    expect(await broken.decode(new Int16Array(1600), 'final', signal)).toEqual({ text: '', source: 'none' });
    await broken.close();
  });

  it('reads the hypothesis file, dropping fillers and alternate markers', () => {
    expect(parseHyp('where is the nearest store (utt -4183)\n')).toBe('where is the nearest store');
    expect(parseHyp(' (utt 0)')).toBe('');
    expect(parseHyp('<s> show [NOISE] me products(2) </s> (utt -1)')).toBe('show me products');
  });
});
