/**
 * The documents' figures against the results they quote (scripts/figures.ts): every figure
 * link matches its results file, and no document names a results file outside one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { figureLinks, figureMismatch, numberIn, unlinkedMentions, valueAt } from './figures.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** bench/README.md's generated section is written from the results by bench/_tables.mjs. */
const withoutGenerated = (markdown: string) => markdown.replace(/<!-- results:begin -->[\s\S]*<!-- results:end -->/, '');
const documents = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && !file.startsWith('node_modules/'));

describe('the figure check itself', () => {
  const results = {
    goals: [{ name: 'median', value: 117.5 }],
    ratios: [{ name: 'cpu-1x', ratio: 1.029 }],
    tables: [{ rows: [['-35 dB', '382 ms']] }],
    notes: ['the wasm 2299.8 KB br of 13906.1 KB'],
  };

  it('finds figures by key, index and name, and reads numbers as the documents write them', () => {
    expect(valueAt(results, 'goals.median.value')).toBe(117.5);
    expect(valueAt(results, 'tables.0.rows.0.1')).toBe('382 ms');
    expect(valueAt(results, 'goals.mean.value')).toBeUndefined();
    expect(numberIn('1,502 passed')).toEqual({ value: 1502, decimals: 0 });
    expect(numberIn('a ratio of 1.03×')).toEqual({ value: 1.03, decimals: 2 });
    expect(numberIn('−15 dB')).toEqual({ value: -15, decimals: 0 });
    expect(figureLinks('a [1.03×](../bench/results/x.json "ratios.cpu-1x.ratio") b', 'docs/d.md')).toEqual([
      { line: 1, text: '1.03×', file: 'bench/results/x.json', path: 'ratios.cpu-1x.ratio' },
    ]);
    expect(unlinkedMentions('see `bench/results/x.json`\n[1](bench/results/x.json "a")\n`bench/results/NAME.json`')).toEqual([1]);
  });

  // Issue 46: docs/decisions.md quoted "50.5 ms" for a median the results gave as 117.5.
  it('fails on a drifted figure, and passes the same figure rounded as written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'figures-'));
    try {
      mkdirSync(join(dir, 'bench', 'results'), { recursive: true });
      writeFileSync(join(dir, 'bench', 'results', 'x.json'), JSON.stringify(results));
      const doc = (text: string) => figureLinks(text, 'docs/d.md').map((link) => figureMismatch(link, dir));
      expect(doc('[50.5 ms](../bench/results/x.json "goals.median.value")')).toEqual([
        'bench/results/x.json "goals.median.value": "50.5 ms", the results say 117.5',
      ]);
      expect(doc('[117.5 ms](../bench/results/x.json "goals.median.value"), [118 ms](../bench/results/x.json "goals.median.value")')).toEqual([null, null]);
      expect(doc('[1.03×](../bench/results/x.json "ratios.cpu-1x.ratio") and [1.18×](../bench/results/x.json "ratios.cpu-1x.ratio")')).toEqual([
        null,
        'bench/results/x.json "ratios.cpu-1x.ratio": "1.18×", the results say 1.029',
      ]);
      expect(doc('[382 ms](../bench/results/x.json "tables.0.rows.0.1"), [161 ms](../bench/results/x.json "tables.0.rows.0.1")')).toEqual([
        null,
        'bench/results/x.json "tables.0.rows.0.1": "161 ms", the results say "382 ms"',
      ]);
      expect(doc('[13906.1 KB](../bench/results/x.json "notes.0"), [13906 KB](../bench/results/x.json "notes.0"), [906.1 KB](../bench/results/x.json "notes.0")')).toEqual([
        null,
        'bench/results/x.json "notes.0": "13906 KB", the results say "the wasm 2299.8 KB br of 13906.1 KB"',
        'bench/results/x.json "notes.0": "906.1 KB", the results say "the wasm 2299.8 KB br of 13906.1 KB"',
      ]);
      expect(doc('[3](../bench/results/y.json "a")')).toEqual(['bench/results/y.json "a": no such results file']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the documents' figures", () => {
  it('read from a results file match it', () => {
    const links = documents.flatMap((doc) => figureLinks(withoutGenerated(readFileSync(join(root, doc), 'utf8')), doc).map((link) => ({ doc, link })));
    expect(links.length).toBeGreaterThan(10);
    const wrong = links.flatMap(({ doc, link }) => {
      const why = figureMismatch(link, root);
      return why ? [`${doc}:${link.line}: ${why}`] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('name a results file only in a figure link', () => {
    const unlinked = documents.flatMap((doc) => unlinkedMentions(withoutGenerated(readFileSync(join(root, doc), 'utf8'))).map((line) => `${doc}:${line}`));
    expect(unlinked).toEqual([]);
  });

  // The tables of bench/README.md are written from the results; a result rewritten by hand, or
  // a benchmark run whose tables were not regenerated, leaves them quoting old figures.
  it("in bench/README.md's generated tables are what the results give", () => {
    const run = spawnSync(process.execPath, ['bench/_tables.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`.trim()).toBe('bench/README.md: up to date');
    expect(run.status).toBe(0);
  });
});
