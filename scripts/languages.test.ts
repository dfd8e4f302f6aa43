/**
 * A language is added in one place, lang/languages.ts (docs/decisions.md, "Adding a
 * language"): every other place reads that list. This names, for each language of it, every
 * place that does not cover it, and any source that keeps a list of languages of its own.
 * The checks are proved able to fail on a sixth language that is not in the list.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, langFromTag, type LanguageSpec } from '../lang/languages.ts';
import { accountInfo, accountLang } from '../server/accounts.ts';
import { answerLang } from '../server/languages.ts';
import { loadMessages } from '../src/app/i18n.ts';
import { SHELL_LOAD_FAILED } from '../src/app/shell.ts';
import { LANG_MARKS, LANG_NAMES } from '../src/features/locale/components/langNames.ts';
import { INTL_LOCALE, isLang, pickInitialLang } from '../src/features/locale/langs.ts';
import { recognitionLocaleFor } from '../src/features/voice/locales.ts';
import { joinPhrases } from '../src/features/voice/sentences.ts';
import { leftOpen } from '../src/features/voice/turnEnd.ts';
import { checkedLanguages, translationProblems } from './check-locales.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const en = JSON.parse(read('lang/en.json')) as Record<string, string>;

/** Browser tags the language is matched from: its language subtag, and with each of its region or script subtags. */
function tagsOf(language: LanguageSpec): string[] {
  const { language: first, anyOf } = language.matchedFrom;
  return anyOf ? anyOf.map((subtag) => `${first}-${subtag.toUpperCase()}`) : [first, `${first}-XX`];
}

/** Every place that does not cover `language`, by name; [] when all do. */
async function missingPlaces(language: LanguageSpec): Promise<string[]> {
  const { code } = language;
  const lookup = <T>(table: Readonly<Record<string, T>>) => (Object.hasOwn(table, code) ? table[code] : undefined);
  const missing: string[] = [];
  const expect = (place: string, ok: boolean) => {
    if (!ok) missing.push(place);
  };

  expect(`lang/${code}.json with every message of en.json`, translationProblems(en, [code]).length === 0);
  if (code !== 'en') expect('scripts/check-locales.mjs', (await checkedLanguages()).includes(code));
  expect('src/app/i18n.ts loadMessages', await loadMessages(code as never).then((m) => m['session.startChat'] !== undefined, () => false));
  expect('isLang (a stored lang, src/features/locale/langs.ts)', isLang(code) && pickInitialLang(code, []) === code);
  expect('langFromTag (the browser language, V1)', tagsOf(language).every((tag) => langFromTag(tag) === code));
  expect('the picker name (LANG_NAMES)', lookup(LANG_NAMES) === language.name);
  expect('the Language button mark (LANG_MARKS)', lookup(LANG_MARKS) === language.mark);
  expect('the Intl tag (INTL_LOCALE)', lookup(INTL_LOCALE) === language.intl);
  expect('the recognition locale (src/features/voice/locales.ts)', recognitionLocaleFor(code) === language.recognition);
  expect('UNSPACED_LANGS (src/features/voice/sentences.ts)', joinPhrases(['a', 'b'], code) === (language.unspaced ? 'ab' : 'a b'));
  const openEnd = language.openEnds[0] ?? '';
  expect('the open ends (src/features/voice/turnEnd.ts)', openEnd !== '' && leftOpen([`x${language.unspaced ? '' : ' '}${openEnd}`], code));
  expect('the shell load failure (src/app/shell.ts)', lookup(SHELL_LOAD_FAILED) === language.loadFailed);
  expect('the stand-in accountLang (server/accounts.ts)', accountLang(code, undefined) === code);
  const title = accountInfo('demo', 'http://127.0.0.1', accountLang(code, undefined))['title'];
  expect('the stand-in account title (server/accounts.ts)', title === accountInfo('demo', 'http://127.0.0.1', answerLang(code) as never)['title']);
  return missing;
}

describe('every language of lang/languages.ts', () => {
  it.each(LANGUAGES.map((language) => [language.code, language] as const))('%s is covered by every place', async (_code, language) => {
    expect(await missingPlaces(language)).toEqual([]);
  });

  it('a sixth language that only the list would know is missing from every place', async () => {
    const sixth: LanguageSpec = {
      code: 'xx',
      name: 'Xx',
      mark: 'X',
      intl: 'xx',
      recognition: 'xx-XX',
      matchedFrom: { language: 'xx' },
      unspaced: true,
      openEnds: ['yy'],
      particlesAttach: false,
      loadFailed: 'xx',
    };
    expect(await missingPlaces(sixth)).toEqual([
      'lang/xx.json with every message of en.json',
      'scripts/check-locales.mjs',
      'src/app/i18n.ts loadMessages',
      'isLang (a stored lang, src/features/locale/langs.ts)',
      'langFromTag (the browser language, V1)',
      'the picker name (LANG_NAMES)',
      'the Language button mark (LANG_MARKS)',
      'the Intl tag (INTL_LOCALE)',
      'the recognition locale (src/features/voice/locales.ts)',
      'UNSPACED_LANGS (src/features/voice/sentences.ts)',
      'the open ends (src/features/voice/turnEnd.ts)',
      'the shell load failure (src/app/shell.ts)',
      'the stand-in accountLang (server/accounts.ts)',
    ]);
  });

  it('are the five of the specification, with the fixed names of docs/contract.md C17 and the locales of R116', () => {
    const spec = [
      ['zh', '简体中文', 'zh-CN'],
      ['cht', '繁體中文', 'zh-TW'],
      ['en', 'English', 'en-US'],
      ['jp', '日本語', 'ja-JP'],
      ['kor', '한국어', 'ko-KR'],
    ];
    for (const [code, name, recognition] of spec) expect(LANGUAGES.find((l) => l.code === code)).toMatchObject({ name, recognition });
  });
});

const CODES: ReadonlySet<string> = new Set(LANGUAGES.map((language) => language.code));

/** A list of its own: a literal that names this many of the codes. */
const LIST_SIZE = 3;

/**
 * The literals of a source that list languages: an array or a union type of codes, an object
 * keyed by codes, a switch's cases, a chain of `x === 'code' ||` tests, a regular expression
 * with codes as alternatives, each naming LIST_SIZE or more codes. A table of rows, one
 * language a row, is not a list (the specification's tables in tests).
 */
export function languageLists(source: string, fileName: string): { line: number; codes: string[] }[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { line: number; codes: string[] }[] = [];
  const stringValue = (node: ts.Node | undefined): string | null =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isIdentifier(node)) ? node.text : null;
  const report = (node: ts.Node, names: (string | null)[]) => {
    const codes = [...new Set(names.filter((name): name is string => name !== null && CODES.has(name)))];
    if (codes.length >= LIST_SIZE) found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, codes });
  };
  const comparisons = (node: ts.Expression): (string | null)[] => {
    if (ts.isParenthesizedExpression(node)) return comparisons(node.expression);
    if (!ts.isBinaryExpression(node)) return [];
    const op = node.operatorToken.kind;
    if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.AmpersandAmpersandToken) return [...comparisons(node.left), ...comparisons(node.right)];
    if (op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsEqualsToken) {
      return [ts.isStringLiteral(node.left) ? node.left.text : null, ts.isStringLiteral(node.right) ? node.right.text : null];
    }
    return [];
  };
  const visit = (node: ts.Node) => {
    if (ts.isArrayLiteralExpression(node)) report(node, node.elements.map((e) => (ts.isStringLiteral(e) ? e.text : null)));
    else if (ts.isUnionTypeNode(node)) report(node, node.types.map((t) => (ts.isLiteralTypeNode(t) ? stringValue(t.literal) : null)));
    else if (ts.isObjectLiteralExpression(node)) report(node, node.properties.map((p) => stringValue(p.name as ts.Node | undefined)));
    else if (ts.isCaseBlock(node)) report(node, node.clauses.map((c) => (ts.isCaseClause(c) ? stringValue(c.expression) : null)));
    else if (ts.isRegularExpressionLiteral(node)) report(node, node.text.match(/[a-z]+/gi) ?? []);
    else if (ts.isBinaryExpression(node) && !(ts.isBinaryExpression(node.parent) || ts.isParenthesizedExpression(node.parent))) report(node, comparisons(node));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('no source but lang/languages.ts lists the languages', () => {
  it('finds the lists it is meant to find, and not a table of rows', () => {
    const lists = (source: string) => languageLists(source, 'x.ts').map((l) => l.codes.length);
    expect(lists("const a = ['zh', 'cht', 'jp'];")).toEqual([3]);
    expect(lists("type L = 'zh' | 'cht' | 'en' | 'jp' | 'kor';")).toEqual([5]);
    expect(lists("const names = { zh: 'a', cht: 'b', 'kor': 'c' };")).toEqual([3]);
    expect(lists("const ok = lang === 'zh' || lang === 'cht' || (lang === 'jp');")).toEqual([3]);
    expect(lists("switch (lang) { case 'en': case 'jp': case 'kor': break; }")).toEqual([3]);
    expect(lists('const re = /^(zh|cht|kor)$/;')).toEqual([3]);
    expect(lists("const rows = [['zh', 'zh-CN'], ['cht', 'zh-TW'], ['en', 'en-US']];")).toEqual([]);
    expect(lists("const two = { en: 'a', zh: 'b' }; const word = 'zh, cht and jp';")).toEqual([]);
  });

  it('in the app, the stand-in, the scripts, the benchmarks and the tests', () => {
    const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /^(src|server|scripts|bench|tests)\/.*\.(ts|tsx|mts|mjs|js)$|^[^/]+\.(ts|js)$/.test(file) && existsSync(join(root, file)));
    expect(sources.length).toBeGreaterThan(100);
    const lists = sources.flatMap((file) => languageLists(read(file), file).map(({ line, codes }) => `${file}:${line}: ${codes.join(', ')}`));
    expect(lists).toEqual([]);
  });
});
