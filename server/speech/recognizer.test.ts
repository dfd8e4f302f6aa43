/** Real pocketsphinx on espeak-ng audio: the grammar pass, the free fallback, partials, kills and work directories. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { questions } from '../replies/knowledge.ts';
import { createRecognizer, parseHyp, type Recognizer } from './recognizer.ts';
import { ensureFixtures, fixturePcm, QUESTION_FIXTURES } from './testing.ts';
import type * as Pocketsphinx from './pocketsphinx.ts';
import { runBatch } from './pocketsphinx.ts';
import { parseWaveHeader } from './wav.ts';
import { WORK_DIR_PREFIX } from './workdir.ts';

// The real pocketsphinx runs, watched: which dictionary each run reads.
vi.mock('./pocketsphinx.ts', async (importOriginal) => {
  const original = await importOriginal<typeof Pocketsphinx>();
  return { ...original, runBatch: vi.fn(original.runBatch) };
});

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
    recognizer = createRecognizer({ questions: questions('en'), tmpDir: dir });
  });

  afterAll(async () => {
    await recognizer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ready with the installed model', async () => {
    expect(await recognizer.ready()).toBeNull();
  });

  it.each(QUESTION_FIXTURES)('decodes $file with the grammar, word for word, reading the grammar\'s own dictionary', async ({ file, text }) => {
    const runs = vi.mocked(runBatch).mock.calls.length;
    expect(await recognizer.decode(samples(fixturePcm(file)), 'final', signal)).toEqual({ text, source: 'grammar' });
    // Its words only (grammar.dict), never the whole CMU dictionary: that made a decode 0.5 s of
    // CPU, several seconds on a loaded machine. How long a decode takes is not timed here.
    const grammarDict = join(dir, readdirSync(dir).find((d) => d.startsWith(WORK_DIR_PREFIX))!, 'grammar.dict');
    const dictionaries = vi.mocked(runBatch).mock.calls.slice(runs).map(([run]) => run.search[run.search.indexOf('-dict') + 1]);
    expect(dictionaries).toEqual([grammarDict]);
    // The demo's questions have a few dozen words; the CMU dictionary, over 100,000.
    expect(readFileSync(grammarDict, 'utf8').trim().split('\n').length).toBeLessThan(1000);
  });

  it('works in a directory of its own and leaves no utterance files behind', () => {
    const own = readdirSync(dir).filter((d) => d.startsWith(WORK_DIR_PREFIX));
    expect(own).toHaveLength(1);
    expect(readdirSync(join(dir, own[0] ?? '')).sort()).toEqual(['fragment.jsgf', 'full.jsgf', 'grammar.dict', 'prefix.jsgf']);
  });

  it('puts its files back when its directory is deleted between decodes', async () => {
    for (const d of readdirSync(dir).filter((n) => n.startsWith(WORK_DIR_PREFIX))) rmSync(join(dir, d), { recursive: true });
    expect(await recognizer.decode(samples(fixturePcm('q-discount.wav')), 'final', signal)).toEqual({ text: 'tell me about the discount', source: 'grammar' });
    expect(await recognizer.decode(samples(fixturePcm('q-discount.wav').subarray(0, 16_000)), 'partial', signal)).toMatchObject({ source: 'grammar' });
  });

  it('gives every instance its own directory, removed by its own close() only', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'speech-test-parent-'));
    try {
      const a = createRecognizer({ questions: questions('en'), tmpDir: parent });
      const b = createRecognizer({ questions: questions('en'), tmpDir: parent });
      await Promise.all([a.ready(), b.ready()]);
      const both = readdirSync(parent);
      expect(both).toHaveLength(2);
      await a.close();
      expect(readdirSync(parent)).toHaveLength(1);
      expect(await b.decode(samples(fixturePcm('q-new-products.wav')), 'final', signal)).toEqual({ text: 'show me the new products', source: 'grammar' });
      await b.close();
      expect(readdirSync(parent)).toEqual([]);
      await expect(b.decode(samples(fixturePcm('q-new-products.wav')), 'final', signal)).rejects.toThrow(/closed/);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('skips a partial decode when every slot is taken, rather than queue it', async () => {
    const one = createRecognizer({ questions: questions('en'), tmpDir: dir, maxConcurrent: 1 });
    try {
      const final = one.decode(samples(fixturePcm('q-nearest-store.wav')), 'final', signal);
      await expect.poll(() => one.busy, { timeout: 10_000, interval: 10 }).toBe(true);
      expect(await one.decode(samples(fixturePcm('q-discount.wav')), 'partial', signal)).toEqual({ text: '', source: 'none' });
      expect(await final).toEqual({ text: 'where is the nearest store', source: 'grammar' });
    } finally {
      await one.close();
    }
  });

  it('hears a question said in two goes word for word: its beginning, then its end, each from the grammar', async () => {
    expect(await recognizer.decode(speak('where is the', dir), 'final', signal)).toEqual({ text: 'where is the', source: 'grammar' });
    expect(await recognizer.decode(speak('nearest store', dir), 'final', signal)).toEqual({ text: 'nearest store', source: 'grammar' });
    expect(await recognizer.decode(speak('your opening hours', dir), 'final', signal)).toEqual({ text: 'your opening hours', source: 'grammar' });
  });

  it('falls back to the language model when the grammar leaves speech unexplained', async () => {
    // The grammar alone answers "what is new" here, padding the rest with silence.
    const result = await recognizer.decode(speak('what is the weather like tomorrow', dir), 'final', signal);
    expect(result.source).toBe('lm');
    expect(result.text).not.toBe('');
    expect(questions('en')).not.toContain(result.text);
  });

  it('falls back to the language model for a question with words of its own after it, at the same level', async () => {
    const result = await recognizer.decode(speak('where is the nearest store in paris', dir), 'final', signal);
    expect(result.source).toBe('lm');
    expect(result.text).not.toBe('where is the nearest store');
  });

  it('keeps the question of the grammar when the echo of the avatar at -25 dB runs on after it', async () => {
    const question = speak('where is the nearest store', dir);
    const echo = speak('the first floor has clothing for women and men', dir);
    const gain = 10 ** (-25 / 20);
    const audio = new Int16Array(question.length + echo.length);
    audio.set(question);
    echo.forEach((sample, i) => (audio[question.length + i] = Math.round(sample * gain)));
    expect(await recognizer.decode(audio, 'final', signal)).toEqual({ text: 'where is the nearest store', source: 'grammar' });
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
