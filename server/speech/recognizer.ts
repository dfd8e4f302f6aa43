/**
 * Offline English recognition with Debian's pocketsphinx (0.8 era): one pocketsphinx_batch
 * run per utterance, each utterance decoded as a whole (pocketsphinx_continuous would split
 * it again at its own pauses and break the grammar match).
 *
 * Final pass: the knowledge-base grammar, so the questions come out word for word. Its
 * result is rejected when it is empty (no question fits the audio) or when it leaves loud
 * audio to silence and fillers (confidence.ts); pocketsphinx's own confidences are useless
 * for a grammar this small. Then the general language model en-us.lm.bin decodes the
 * utterance freely. Partial pass: a grammar of question prefixes, cheap enough to run while
 * the speaker is still talking.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../log.ts';
import { MAX_UNEXPLAINED_FRAMES, parseHypseg, unexplainedSpeechFrames, type HypSegment } from './confidence.ts';
import { buildGrammars, dictionaryWords, type GrammarSet } from './grammar.ts';
import { Semaphore } from './semaphore.ts';

const log = createLogger('speech');

export interface ModelPaths {
  batch: string;
  hmm: string;
  dict: string;
  /** Null runs without the free-recognition fallback. */
  lm: string | null;
}

const MODEL_DIR = process.env.POCKETSPHINX_MODEL_DIR ?? '/usr/share/pocketsphinx/model/en-us';

export const DEFAULT_MODEL: ModelPaths = {
  batch: process.env.POCKETSPHINX_BATCH ?? '/usr/bin/pocketsphinx_batch',
  hmm: join(MODEL_DIR, 'en-us'),
  dict: join(MODEL_DIR, 'cmudict-en-us.dict'),
  lm: join(MODEL_DIR, 'en-us.lm.bin'),
};

export type DecodeMode = 'final' | 'partial';

export interface DecodeResult {
  /** Lower-case words, no punctuation; empty when nothing was recognised. */
  text: string;
  source: 'grammar' | 'lm' | 'none';
}

export interface RecognizerOptions {
  questions: string[];
  model?: Partial<ModelPaths>;
  /** pocketsphinx processes at once for the whole service; the machine may have 2 cores. */
  maxConcurrent?: number;
  /** A decode running longer than this is killed. */
  timeoutMs?: number;
}

export interface Recognizer {
  /** Resolves with why recognition is unavailable, or null once ready. */
  ready(): Promise<string | null>;
  decode(pcm: Int16Array, mode: DecodeMode, signal: AbortSignal): Promise<DecodeResult>;
  /** True when every decode slot is taken: optional (partial) work should be skipped. */
  readonly busy: boolean;
  close(): Promise<void>;
}

interface Setup {
  /** Where full.jsgf and prefix.jsgf are. */
  grammarDir: string;
  grammars: GrammarSet | null;
  lm: string | null;
}

/**
 * Shared by every stand-in on the machine. Grammars live in a directory named after their
 * content, so a process that is killed leaves nothing that grows; each decode works in its
 * own directory, removed when the decode ends.
 */
const WORK_ROOT = join(tmpdir(), 'standin-speech');

async function writeGrammars(grammars: GrammarSet | null): Promise<string> {
  const files = { 'full.jsgf': grammars?.full ?? '', 'prefix.jsgf': grammars?.prefix ?? '' };
  const dir = join(WORK_ROOT, 'grammars', createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16));
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    // Written aside and renamed: another process may be reading the same file.
    const tmp = join(dir, `${name}.${randomUUID()}.tmp`);
    await writeFile(tmp, content);
    await rename(tmp, join(dir, name));
  }
  return dir;
}

const NOTHING: DecodeResult = { text: '', source: 'none' };

/** "where is the nearest store (utt -4183)" → "where is the nearest store", fillers dropped. */
export function parseHyp(line: string): string {
  const match = /^(.*?)\s*\(\S+\s+-?\d+\)\s*$/.exec(line.trim());
  const words = (match?.[1] ?? '').split(/\s+/);
  return words.filter((w) => w !== '' && !/^[<[+]/.test(w)).map((w) => w.replace(/\(\d+\)$/, '').toLowerCase()).join(' ');
}

export function createRecognizer(opts: RecognizerOptions): Recognizer {
  const model: ModelPaths = { ...DEFAULT_MODEL, ...opts.model };
  const slots = new Semaphore(opts.maxConcurrent ?? 2);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const closing = new AbortController();
  let setup: Promise<Setup | string> | null = null;

  async function prepare(): Promise<Setup | string> {
    try {
      await access(model.batch);
      await access(model.hmm);
      const dict = await readFile(model.dict, 'utf8');
      const lm = model.lm && (await access(model.lm).then(() => true, () => false)) ? model.lm : null;
      if (!lm) log.warn('no general language model: utterances outside the grammar get NoMatch', { lm: model.lm });
      const grammars = buildGrammars(opts.questions, dictionaryWords(dict));
      for (const r of grammars?.rejected ?? []) log.warn('question left out of the grammar: words not in the dictionary', r);
      const grammarDir = await writeGrammars(grammars);
      log.info('pocketsphinx ready', { questions: grammars?.questions.length ?? 0, lm: lm !== null });
      return { grammarDir, grammars, lm };
    } catch (err) {
      const why = `pocketsphinx unavailable: ${err instanceof Error ? err.message : String(err)}`;
      log.error(why);
      return why;
    }
  }

  function getSetup(): Promise<Setup | string> {
    setup ??= prepare();
    return setup;
  }

  interface Hyp {
    text: string;
    segments: HypSegment[];
  }

  async function runBatch(s: Setup, pcm: Int16Array, search: string[], signal: AbortSignal): Promise<Hyp> {
    await mkdir(WORK_ROOT, { recursive: true }); // tmp cleaners may have removed it
    const work = await mkdtemp(join(WORK_ROOT, 'utt-'));
    try {
      await writeFile(join(work, 'utt.raw'), Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      await writeFile(join(work, 'ctl'), 'utt\n');
      const args = ['-ctl', join(work, 'ctl'), '-cepdir', work, '-cepext', '.raw', '-adcin', 'yes', '-hmm', model.hmm, '-dict', model.dict, ...search];
      const outputs = ['-hyp', join(work, 'hyp'), '-hypseg', join(work, 'seg'), '-logfn', '/dev/null'];
      await run(model.batch, [...args, ...outputs], AbortSignal.any([signal, closing.signal, AbortSignal.timeout(timeoutMs)]));
      const [hyp, seg] = await Promise.all([readFile(join(work, 'hyp'), 'utf8'), readFile(join(work, 'seg'), 'utf8')]);
      return { text: parseHyp(hyp), segments: parseHypseg(seg) };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  async function decodeWith(s: Setup, pcm: Int16Array, mode: DecodeMode, signal: AbortSignal): Promise<DecodeResult> {
    if (mode === 'partial') {
      if (!s.grammars) return NOTHING;
      const { text } = await runBatch(s, pcm, ['-jsgf', join(s.grammarDir, 'prefix.jsgf')], signal);
      return text ? { text, source: 'grammar' } : NOTHING;
    }
    if (s.grammars) {
      // Silence removal off: hypseg frame numbers must match the audio's own 10 ms frames
      // (it is cheap with a grammar; with the language model it would cost seconds).
      const { text, segments } = await runBatch(s, pcm, ['-jsgf', join(s.grammarDir, 'full.jsgf'), '-remove_silence', 'no'], signal);
      const unexplained = text ? unexplainedSpeechFrames(pcm, segments) : 0;
      if (text && unexplained <= MAX_UNEXPLAINED_FRAMES) return { text, source: 'grammar' };
      if (text) log.info('grammar result rejected: speech left unexplained', { text, unexplainedMs: unexplained * 10 });
    }
    if (!s.lm) return NOTHING;
    const { text } = await runBatch(s, pcm, ['-lm', s.lm], signal);
    return text ? { text, source: 'lm' } : NOTHING;
  }

  return {
    async ready() {
      const s = await getSetup();
      return typeof s === 'string' ? s : null;
    },
    get busy() {
      return slots.full;
    },
    async decode(pcm, mode, signal) {
      const s = await getSetup();
      if (typeof s === 'string' || pcm.length === 0) return NOTHING;
      const release = await slots.acquire(AbortSignal.any([signal, closing.signal]));
      try {
        return await decodeWith(s, pcm, mode, signal);
      } finally {
        release();
      }
    },
    /** Kills running decodes; each removes its own work directory as it ends. */
    async close() {
      closing.abort(new Error('recognizer closed'));
      if (setup) await setup;
    },
  };
}

/** Runs a child with an args array (no shell); the signal kills it. */
function run(cmd: string, args: string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], signal, killSignal: 'SIGKILL' });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('error', reject);
    child.on('close', (code, sig) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} exited with ${code ?? sig}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}
