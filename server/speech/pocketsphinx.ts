/**
 * One pocketsphinx_batch run over one utterance. Debian's pocketsphinx (0.8 era) cannot
 * take a whole utterance from a pipe: it decodes a non-seekable input as a live stream
 * (other scores than the same audio from a file), and Node's child stdio are sockets,
 * which /dev/stdin cannot reopen (ENXIO). So the utterance goes through files in the
 * recognizer's own work directory, named per decode and removed when it ends.
 */
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { parseHypseg, type HypSegment } from './confidence.ts';
import type { WorkDir } from './workdir.ts';

export interface BatchModel {
  batch: string;
  hmm: string;
}

export interface BatchRun {
  model: BatchModel;
  dir: WorkDir;
  pcm: Int16Array;
  /** The dictionary and search arguments (-dict, -jsgf or -lm, ...). */
  search: string[];
  signal: AbortSignal;
}

export interface Hyp {
  text: string;
  segments: HypSegment[];
}

/** "where is the nearest store (utt-3 -4183)" → "where is the nearest store", fillers dropped. */
export function parseHyp(line: string): string {
  const match = /^(.*?)\s*\(\S+\s+-?\d+\)\s*$/.exec(line.trim());
  const words = (match?.[1] ?? '').split(/\s+/);
  return words.filter((w) => w !== '' && !/^[<[+]/.test(w)).map((w) => w.replace(/\(\d+\)$/, '').toLowerCase()).join(' ');
}

export async function runBatch(r: BatchRun): Promise<Hyp> {
  const name = r.dir.nextName();
  const [raw, ctl, hyp, seg] = ['.raw', '.ctl', '.hyp', '.seg'].map((ext) => r.dir.file(name + ext)) as [string, string, string, string];
  try {
    await writeFile(raw, Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength));
    if (process.env.SPEECH_DUMP) await writeFile(`${process.env.SPEECH_DUMP}/${Date.now()}-${name}.raw`, Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength));
    await writeFile(ctl, `${name}\n`);
    const args = ['-ctl', ctl, '-cepdir', r.dir.path, '-cepext', '.raw', '-adcin', 'yes', '-hmm', r.model.hmm, ...r.search, '-hyp', hyp, '-hypseg', seg];
    await run(r.model.batch, args, r.signal);
    const [hypText, segText] = await Promise.all([readFile(hyp, 'utf8'), readFile(seg, 'utf8')]);
    // pocketsphinx skips an utterance it cannot read and still exits 0: no line means no decode.
    if (!hypText.includes(`(${name} `)) throw new Error(`pocketsphinx wrote no hypothesis for ${name}`);
    return { text: parseHyp(hypText), segments: parseHypseg(segText) };
  } finally {
    await Promise.all([raw, ctl, hyp, seg].map((f) => rm(f, { force: true })));
  }
}

/** Runs a child with an args array (no shell); the signal kills it. Errors carry pocketsphinx's own ERROR lines. */
function run(cmd: string, args: string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], signal, killSignal: 'SIGKILL' });
    let errors = '';
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // The log is ~7 kB of INFO lines per run; only the errors are worth keeping.
      const lines = (tail + chunk).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) if (/^(ERROR|FATAL)/.test(line)) errors = (errors + line.trim() + ' | ').slice(-1000);
    });
    child.on('error', reject);
    child.on('close', (code, sig) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} exited with ${code ?? sig}: ${errors || tail.trim()}`));
    });
  });
}
