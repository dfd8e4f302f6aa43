/**
 * Offline English recognition with Debian's pocketsphinx (0.8 era): one pocketsphinx_batch
 * run per utterance, each utterance decoded as a whole (pocketsphinx_continuous would split
 * it again at its own pauses and break the grammar match).
 *
 * Final pass: the knowledge-base grammar, so the questions come out word for word (then their
 * beginnings and ends, for a question said in two goes), with a
 * dictionary of just its words (about 0.1 s a decode instead of 0.5 s with the whole CMU
 * dictionary, five times that on a loaded machine). Its result is sent as it is unless it
 * is clearly wrong: empty (no question fits the audio), or leaving loud audio to silence
 * and fillers (confidence.ts); pocketsphinx's own confidences are useless for a grammar
 * this small. Only then does the general language model (seconds per decode) have a go.
 * Partial pass: a grammar of question prefixes, run only when a decode slot is free.
 */
import { readFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '../log.ts';
import { loudFrames, MAX_UNEXPLAINED_FRAMES, unexplainedSpeechFrames } from './confidence.ts';
import { buildGrammars, dictionarySubset, dictionaryWords, type GrammarSet } from './grammar.ts';
import { runBatch, type Hyp } from './pocketsphinx.ts';
import { Semaphore } from './semaphore.ts';
import { WorkDir } from './workdir.ts';

export { parseHyp } from './pocketsphinx.ts';

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
  /** A decode not done this long after it was asked for (waiting for a slot included) is killed: its phrase would come too late. */
  timeoutMs?: number;
  /** Where the recognizer makes its own work directory; default: the OS temp dir. */
  tmpDir?: string;
}

export interface Recognizer {
  /** Resolves with why recognition is unavailable, or null once ready. */
  ready(): Promise<string | null>;
  /**
   * Partial decodes resolve with nothing at once when every slot is taken: they are optional.
   * `key` (the connection) shares the slots fairly: waiting decodes get them by connection in turn.
   */
  decode(pcm: Int16Array, mode: DecodeMode, signal: AbortSignal, key?: string): Promise<DecodeResult>;
  /** True when every decode slot is taken: optional (partial) work should be skipped. */
  readonly busy: boolean;
  /** Kills running decodes and removes the work directory. */
  close(): Promise<void>;
}

interface Setup {
  dir: WorkDir;
  grammars: GrammarSet | null;
  lm: string | null;
}

const NOTHING: DecodeResult = { text: '', source: 'none' };
/** Less loud audio than this (10 ms frames) holds no question: not worth a decode. */
const MIN_SPEECH_FRAMES = 10;
const FILES = { full: 'full.jsgf', prefix: 'prefix.jsgf', fragment: 'fragment.jsgf', dict: 'grammar.dict' } as const;

export function createRecognizer(opts: RecognizerOptions): Recognizer {
  const model: ModelPaths = { ...DEFAULT_MODEL, ...opts.model };
  const slots = new Semaphore(opts.maxConcurrent ?? 2);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const closing = new AbortController();
  let setup: Promise<Setup | string> | null = null;
  const inflight = new Set<Promise<DecodeResult>>();

  async function prepare(): Promise<Setup | string> {
    try {
      await access(model.batch);
      await access(model.hmm);
      const dict = await readFile(model.dict, 'utf8');
      const lm = model.lm && (await access(model.lm).then(() => true, () => false)) ? model.lm : null;
      if (!lm) log.warn('no general language model: utterances outside the grammar get NoMatch', { lm: model.lm });
      const grammars = buildGrammars(opts.questions, dictionaryWords(dict));
      for (const r of grammars?.rejected ?? []) log.warn('question left out of the grammar: words not in the dictionary', r);
      const words = grammars?.questions.flat() ?? [];
      const dir = await WorkDir.create(
        {
          [FILES.full]: grammars?.full ?? '',
          [FILES.prefix]: grammars?.prefix ?? '',
          [FILES.fragment]: grammars?.fragment ?? '',
          [FILES.dict]: dictionarySubset(dict, words),
        },
        opts.tmpDir,
      );
      if (closing.signal.aborted) {
        await dir.remove(); // closed while preparing
        return 'recognizer closed';
      }
      log.info('pocketsphinx ready', { questions: grammars?.questions.length ?? 0, lm: lm !== null, dir: dir.path });
      return { dir, grammars, lm };
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

  /** One run, with the work directory checked first and one retry if it vanished mid-run. */
  async function batch(s: Setup, pcm: Int16Array, search: string[], signal: AbortSignal): Promise<Hyp> {
    await s.dir.ensure();
    const attempt = () => runBatch({ model, dir: s.dir, pcm, search, signal });
    try {
      return await attempt();
    } catch (err) {
      if (signal.aborted || !(await s.dir.ensure())) throw err;
      return attempt();
    }
  }

  async function decodeWith(s: Setup, pcm: Int16Array, mode: DecodeMode, signal: AbortSignal): Promise<DecodeResult> {
    const grammarDict = ['-dict', s.dir.file(FILES.dict)];
    if (mode === 'partial') {
      if (!s.grammars) return NOTHING;
      const { text } = await batch(s, pcm, [...grammarDict, '-jsgf', s.dir.file(FILES.prefix)], signal);
      return text ? { text, source: 'grammar' } : NOTHING;
    }
    // A whole question first; then the beginning or the end of one (a visitor who paused inside it).
    for (const grammar of s.grammars ? [FILES.full, FILES.fragment] : []) {
      // Silence removal off: hypseg frame numbers must match the audio's own 10 ms frames.
      const { text, segments } = await batch(s, pcm, [...grammarDict, '-jsgf', s.dir.file(grammar), '-remove_silence', 'no'], signal);
      const unexplained = text ? unexplainedSpeechFrames(pcm, segments) : 0;
      if (text && unexplained <= MAX_UNEXPLAINED_FRAMES) return { text, source: 'grammar' };
      if (text) log.info('grammar result rejected: speech left unexplained', { grammar, text, unexplainedMs: unexplained * 10 });
    }
    if (!s.lm) return NOTHING;
    const { text } = await batch(s, pcm, ['-dict', model.dict, '-lm', s.lm], signal);
    return text ? { text, source: 'lm' } : NOTHING;
  }

  async function decodeSlot(pcm: Int16Array, mode: DecodeMode, signal: AbortSignal, key: string): Promise<DecodeResult> {
    const s = await getSetup();
    if (typeof s === 'string' || loudFrames(pcm).filter(Boolean).length < MIN_SPEECH_FRAMES) return NOTHING;
    const run = linkedAbort([signal, closing.signal], timeoutMs);
    try {
      const release = mode === 'partial' ? slots.tryAcquire() : await slots.acquire(run.signal, key);
      if (!release) return NOTHING;
      try {
        return await decodeWith(s, pcm, mode, run.signal);
      } finally {
        release();
      }
    } finally {
      run.dispose();
    }
  }

  return {
    async ready() {
      const s = await getSetup();
      return typeof s === 'string' ? s : null;
    },
    get busy() {
      return slots.full;
    },
    decode(pcm, mode, signal, key = '') {
      if (closing.signal.aborted) return Promise.reject(new Error('recognizer closed'));
      const pending = decodeSlot(pcm, mode, signal, key);
      inflight.add(pending);
      const forget = () => inflight.delete(pending);
      pending.then(forget, forget);
      return pending;
    },
    async close() {
      closing.abort(new Error('recognizer closed'));
      const s = setup ? await setup : null;
      // Killed decodes remove their own files as they end; then the directory goes.
      await Promise.allSettled([...inflight]);
      if (s && typeof s !== 'string') await s.dir.remove();
    },
  };
}

/**
 * One signal aborted by any of `signals` or by the timeout, detached again by dispose().
 * Not AbortSignal.any: on Node 20 every derived signal stays referenced by a long-lived
 * source (the recognizer's, a connection's), which adds up over a long session.
 */
function linkedAbort(signals: AbortSignal[], timeoutMs: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = (reason: unknown) => controller.abort(reason);
  const onAbort = function (this: AbortSignal) {
    abort(this.reason);
  };
  for (const s of signals) {
    if (s.aborted) abort(s.reason);
    else s.addEventListener('abort', onAbort, { once: true });
  }
  const timer = setTimeout(() => abort(new Error(`decode took longer than ${timeoutMs} ms`)), timeoutMs);
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      for (const s of signals) s.removeEventListener('abort', onAbort);
    },
  };
}
