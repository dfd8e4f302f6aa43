/**
 * Figures in the documents that cannot drift from the results they quote. A figure taken
 * from a benchmark's results is written as a Markdown link to the results file, with the
 * place of the figure in the file as the link's title:
 *
 *   a median of [117.5 ms](../bench/results/call-start.json "goals.median.value")
 *
 * The title is a path of keys separated by dots: an object's key, an array's index, or, in
 * an array of objects with names (goals, ratios), the name. scripts/figures.test.ts reads
 * every such link and checks the text against the file: a number is the figure rounded to
 * the decimals the text shows; a string (a table's cell) is found in the text, or the text's
 * number is found in it as written (a note). And a document may name a
 * results file only in such a link, so no figure quotes one unchecked.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface FigureLink {
  line: number;
  text: string;
  /** The results file, relative to the repository's root. */
  file: string;
  path: string;
}

const LINK = /\[([^\]]+)\]\(([^)\s]*bench\/results\/[\w.-]+\.json)\s+"([^"]+)"\)/g;

/** Every figure link of a document at `doc` (relative to the root). */
export function figureLinks(markdown: string, doc: string): FigureLink[] {
  const links: FigureLink[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const m of text.matchAll(LINK)) {
      links.push({ line: index + 1, text: m[1]!, file: relative('.', join(dirname(doc), m[2]!)), path: m[3]! });
    }
  });
  return links;
}

/** Lines naming a results file (`bench/results/call-start.json`, not a pattern like `NAME.json`) outside a figure link. */
export function unlinkedMentions(markdown: string): number[] {
  const lines: number[] = [];
  markdown.split('\n').forEach((text, index) => {
    if (/bench\/results\/[a-z0-9-]+\.json/.test(text.replace(LINK, ''))) lines.push(index + 1);
  });
  return lines;
}

/** The value at `path` in `data`, or undefined. */
export function valueAt(data: unknown, path: string): unknown {
  let here: unknown = data;
  for (const key of path.split('.')) {
    if (Array.isArray(here)) {
      here = /^\d+$/.test(key) ? here[Number(key)] : here.find((item: unknown) => (item as { name?: unknown } | null)?.name === key);
    } else if (here !== null && typeof here === 'object') {
      here = (here as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return here;
}

/** The first number written in `text` (thousands grouped by commas or thin spaces, − for minus), with its decimals. */
export function numberIn(text: string): { value: number; decimals: number } | null {
  const m = /([-−]?)(\d{1,3}(?:[,\u2009]\d{3})+|\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return null;
  const digits = `${m[2]!.replace(/[,\u2009]/g, '')}${m[3] ? `.${m[3]}` : ''}`;
  return { value: (m[1] ? -1 : 1) * Number(digits), decimals: m[3]?.length ?? 0 };
}

/** Why `link` does not match the results, or null when it does. */
export function figureMismatch(link: FigureLink, root: string): string | null {
  const where = `${link.file} "${link.path}"`;
  if (!existsSync(join(root, link.file))) return `${where}: no such results file`;
  const value = valueAt(JSON.parse(readFileSync(join(root, link.file), 'utf8')), link.path);
  if (typeof value === 'number') {
    const written = numberIn(link.text);
    if (!written) return `${where}: "${link.text}" shows no number (the results say ${value})`;
    const rounded = Number(value.toFixed(written.decimals));
    return rounded === written.value ? null : `${where}: "${link.text}", the results say ${value}`;
  }
  if (typeof value === 'string') {
    // A cell ("382 ms") is found whole in the text; a longer string (a note) need only hold
    // the text's number as written ("13906.1"), as a number of its own.
    const text = link.text.replace(/`/g, '');
    const written = /[-−]?\d[\d,.]*\d|\d/.exec(text)?.[0];
    const held = written !== undefined && new RegExp(`(^|[^\\d.,])${written.replace(/[.]/g, '\\.')}($|[^\\d.,]|[.,](?!\\d))`).test(value);
    return text.includes(value) || held ? null : `${where}: "${link.text}", the results say "${value}"`;
  }
  return `${where}: no figure there (${value === undefined ? 'nothing' : typeof value})`;
}
