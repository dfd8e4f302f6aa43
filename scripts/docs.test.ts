/**
 * The documents point at the code, and the code at the documents; this keeps both pointing
 * somewhere. docs/requirements.md names, for each rule, the files that implement it and the
 * tests that check it (`- test: \`file\` › \`exact test name\``); comments cite rules by number
 * (`docs/requirements.md R46`, `docs/contract.md C12`). A renamed test, a moved file, a
 * number that is not defined, or a citation of a document a clone does not have, fails here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(root, file)));

/** The numbers a document defines: `**R12.**`, `**C4.**`, `**V3. A title.**`. */
export function definedNumbers(markdown: string): Set<string> {
  return new Set(Array.from(markdown.matchAll(/^\*\*([RCV]\d+)\./gm), (m) => m[1]!));
}

/** A code span's text: `a` or ``a ` b`` (the fence is as many backticks as open it). */
function codeSpan(text: string): string | null {
  const fence = /^`+/.exec(text)?.[0];
  if (!fence || !text.endsWith(fence) || text.length <= fence.length * 2) return null;
  const inner = text.slice(fence.length, -fence.length);
  // A name with a backtick in it needs a longer fence, or Markdown breaks the span apart.
  if (inner.includes(fence)) return null;
  return fence.length > 1 ? inner.trim() : inner;
}

export interface TestReference {
  line: number;
  file: string;
  name: string;
}

/** Every `- test: \`file\` › \`name\`` line of a document. */
export function testReferences(markdown: string): TestReference[] {
  const refs: TestReference[] = [];
  markdown.split('\n').forEach((text, index) => {
    const m = /^- test: `([^`]+)` › (.+)$/.exec(text);
    if (!m) {
      if (text.startsWith('- test:')) refs.push({ line: index + 1, file: '', name: text });
      return;
    }
    refs.push({ line: index + 1, file: m[1]!, name: codeSpan(m[2]!.trim()) ?? '' });
  });
  return refs;
}

/** Every path of a `- code: \`a\`, \`b\`` line. */
export function codeReferences(markdown: string): { line: number; path: string }[] {
  const refs: { line: number; path: string }[] = [];
  markdown.split('\n').forEach((text, index) => {
    if (!text.startsWith('- code: ')) return;
    for (const m of text.matchAll(/`([^`]+)`/g)) refs.push({ line: index + 1, path: m[1]! });
  });
  return refs;
}

const TEST_CALLEES = new Set(['it', 'test']);

/** The callee's base name of `it(…)`, `test(…)`, `it.each(…)(…)`, `test.skipIf(…)(…)`; null for anything else. */
function testCallee(expression: ts.Expression): string | null {
  if (ts.isIdentifier(expression)) return TEST_CALLEES.has(expression.text) ? expression.text : null;
  if (ts.isCallExpression(expression)) return testCallee(expression.expression);
  if (ts.isPropertyAccessExpression(expression)) {
    if (ts.isIdentifier(expression.expression) && expression.expression.text === 'test' && expression.name.text === 'describe') return null;
    return testCallee(expression.expression);
  }
  return null;
}

/**
 * The names of the tests a file declares, as the source spells them: a string's value, or a
 * template's text between its backticks (`the start screen in ${lang}: …`).
 */
export function testNames(source: string, fileName = 'test.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const names: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && testCallee(node.expression) && node.arguments.length > 0) {
      const title = node.arguments[0]!;
      if (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title)) names.push(title.text);
      else if (ts.isTemplateExpression(title)) names.push(title.getText(file).slice(1, -1));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

const CITATION = /\b(requirements|contract)\.md((?:(?:,\s*|\s+and\s+|\s+)[RCV]\d+)+)/g;

/** The numbers a text cites by document: `docs/requirements.md R46, R48 and V3`. */
export function citations(text: string): { doc: 'requirements' | 'contract'; number: string }[] {
  const found: { doc: 'requirements' | 'contract'; number: string }[] = [];
  for (const m of text.matchAll(CITATION)) {
    for (const n of m[2]!.matchAll(/[RCV]\d+/g)) found.push({ doc: m[1] as 'requirements' | 'contract', number: n[0] });
  }
  return found;
}

const requirementsDoc = read('docs/requirements.md');
const contractDoc = read('docs/contract.md');
const defined = { requirements: definedNumbers(requirementsDoc), contract: definedNumbers(contractDoc) };

describe('the document checks themselves', () => {
  it('read test names from it, test, each and templates, and skip describe', () => {
    const source = [
      "describe('a group', () => {",
      "  it('a plain name', () => {});",
      '  test(`the screen in ${lang}: ok`, async () => {});',
      "  it.each([1])('%s → %j', () => {});",
      "  test('with options', { timeout: 5 }, () => {});",
      "  test.describe('a playwright group', () => {});",
      '});',
    ].join('\n');
    expect(testNames(source)).toEqual(['a plain name', 'the screen in ${lang}: ok', '%s → %j', 'with options']);
  });

  it('read references and citations as the documents write them', () => {
    expect(testReferences('- test: `a.test.ts` › `a name with "quotes"`\n- test: `b.spec.ts` › ``a `lang` name``')).toEqual([
      { line: 1, file: 'a.test.ts', name: 'a name with "quotes"' },
      { line: 2, file: 'b.spec.ts', name: 'a `lang` name' },
    ]);
    expect(citations('see docs/requirements.md R46, R48 and V3; docs/contract.md C12')).toEqual([
      { doc: 'requirements', number: 'R46' },
      { doc: 'requirements', number: 'R48' },
      { doc: 'requirements', number: 'V3' },
      { doc: 'contract', number: 'C12' },
    ]);
  });
});

/** The documents that name the tests of their rules: the specification's rules, and the decisions (the voice's D1 to D8). */
const ruleDocs = { 'docs/requirements.md': requirementsDoc, 'docs/decisions.md': read('docs/decisions.md') };

describe.each(Object.entries(ruleDocs))('%s', (doc, markdown) => {
  // Parses some eighty test files: seconds on a loaded 2-core machine, so a generous bound.
  it('names only tests that exist, by their exact names', { timeout: 120_000 }, () => {
    const refs = testReferences(markdown);
    expect(refs.length).toBeGreaterThan(doc.endsWith('requirements.md') ? 100 : 6);
    const names = new Map<string, string[]>();
    const missing: string[] = [];
    for (const ref of refs) {
      if (!ref.file || !ref.name) {
        missing.push(`line ${ref.line}: not of the form - test: \`file\` › \`name\``);
        continue;
      }
      if (!existsSync(join(root, ref.file))) {
        missing.push(`line ${ref.line}: no file ${ref.file}`);
        continue;
      }
      if (!names.has(ref.file)) names.set(ref.file, testNames(read(ref.file), ref.file));
      if (!names.get(ref.file)!.includes(ref.name)) missing.push(`line ${ref.line}: no test "${ref.name}" in ${ref.file}`);
    }
    expect(missing).toEqual([]);
  });

  it('names only files and folders that exist', () => {
    const missing = codeReferences(markdown)
      .filter((ref) => !existsSync(join(root, ref.path.replace(/\*.*$/, ''))))
      .map((ref) => `line ${ref.line}: ${ref.path}`);
    expect(missing).toEqual([]);
  });
});

describe('docs/requirements.md', () => {
  it('refers only to numbers it or contract.md defines', () => {
    const own = (markdown: string) => Array.from(markdown.matchAll(/\b([RCV]\d+)\b/g), (m) => m[1]!);
    const undefinedHere = [...own(requirementsDoc), ...own(contractDoc)].filter((n) => !(n.startsWith('C') ? defined.contract : defined.requirements).has(n));
    expect(undefinedHere).toEqual([]);
  });
});

describe('the voice rules', () => {
  const decisions = ruleDocs['docs/decisions.md'];
  const numbers = Array.from(decisions.matchAll(/^\*\*(D\d+)\./gm), (m) => m[1]!);

  it('are numbered D1, D2, … in docs/decisions.md, each with its code and its tests', () => {
    expect(numbers).toEqual(numbers.map((_, i) => `D${i + 1}`));
    expect(numbers.length).toBeGreaterThanOrEqual(7);
    const sections = decisions.split(/^(?=\*\*D\d+\.)/m).slice(1);
    const without = sections.filter((text) => !/^- code: /m.test(text) || !/^- test: /m.test(text)).map((text) => text.slice(0, 40));
    expect(without).toEqual([]);
  });

  it('are the ones the voice map names', () => {
    const map = read('src/features/voice/README.md');
    const named = Array.from(map.matchAll(/\| (D\d+) \|/g), (m) => m[1]!);
    expect(named.length).toBeGreaterThanOrEqual(7);
    expect(named.filter((n) => !numbers.includes(n))).toEqual([]);
  });
});

describe('citations in the repository', () => {
  const texts = tracked.filter((file) => /\.(ts|tsx|mts|mjs|js|css|html|conf|md)$/.test(file) && !file.startsWith('docs/requirements.md') && !file.startsWith('docs/contract.md'));

  it('cite only numbers the documents define', () => {
    const wrong: string[] = [];
    for (const file of texts) {
      for (const { doc, number } of citations(read(file))) {
        const ok = doc === 'contract' ? number.startsWith('C') && defined.contract.has(number) : !number.startsWith('C') && defined.requirements.has(number);
        if (!ok) wrong.push(`${file}: ${doc}.md ${number}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('cite no document a clone does not have (CONTRACT.md, the specification by section)', () => {
    const outside = [/CONTRACT\.md/, /\bspec(?:ification)?(?:'s)? (?:sections? |§ ?)\d/i];
    const found = texts.filter((file) => file !== 'scripts/docs.test.ts' && outside.some((pattern) => pattern.test(read(file))));
    expect(found).toEqual([]);
  });
});

/**
 * A document's paragraphs and their words: the blocks between blank lines, each list item
 * its own paragraph; fenced code, tables, headings and HTML comments left out; a link
 * counted by its text. Issue 46 set the bound: no paragraph over 160 words.
 */
export function paragraphs(markdown: string): { line: number; words: number }[] {
  const found: { line: number; words: number }[] = [];
  let current: { line: number; text: string } | null = null;
  let fenced = false;
  const close = () => {
    if (!current) return;
    const words = current.text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
    found.push({ line: current.line, words });
    current = null;
  };
  markdown
    .replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ''))
    .split('\n')
    .forEach((text, index) => {
      if (/^\s*(```|~~~)/.test(text)) {
        close();
        fenced = !fenced;
        return;
      }
      if (fenced) return;
      if (text.trim() === '' || /^\s*(#|\|)/.test(text)) return close();
      if (/^\s*([-*+]|\d+[.)])\s/.test(text)) close();
      if (current) current.text += ` ${text}`;
      else current = { line: index + 1, text };
    });
  close();
  return found;
}

export const PARAGRAPH_WORDS = 160;
/** The front page is read first and whole, so its paragraphs are shorter (issue 50). */
export const README_PARAGRAPH_WORDS = 120;

describe('every document', () => {
  it('reads its paragraphs as written: items apart, code and tables left out', () => {
    const text = ['# Title', '', 'one two three', 'four [five six](x.md)', '- a b', '- c', '  d', '', '```', 'x y z', '```', '| a | b |'].join('\n');
    expect(paragraphs(text)).toEqual([
      { line: 3, words: 6 },
      { line: 5, words: 2 },
      { line: 6, words: 2 },
    ]);
    expect(paragraphs(`${'word '.repeat(161)}`)[0]!.words).toBeGreaterThan(PARAGRAPH_WORDS);
  });

  it(`has no paragraph over ${PARAGRAPH_WORDS} words, and README.md none over ${README_PARAGRAPH_WORDS}`, () => {
    const long = tracked
      .filter((file) => file.endsWith('.md') && !file.startsWith('node_modules/'))
      .flatMap((file) => {
        const limit = file === 'README.md' ? README_PARAGRAPH_WORDS : PARAGRAPH_WORDS;
        return paragraphs(read(file)).filter((p) => p.words > limit).map((p) => `${file}:${p.line}: ${p.words} words, over ${limit}`);
      });
    expect(long).toEqual([]);
  });
});

describe('the product code', () => {
  // Issue 46: a file over 400 lines had grown two jobs; split it where the jobs part.
  it('has no file over 400 lines', () => {
    const long = tracked
      .filter((file) => /^(src|server)\/.*\.(ts|tsx)$/.test(file) && !/\.test\.tsx?$|\/testing\/|\.d\.ts$/.test(file))
      .map((file) => ({ file, lines: read(file).replace(/\n$/, '').split('\n').length }))
      .filter(({ lines }) => lines > 400)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
