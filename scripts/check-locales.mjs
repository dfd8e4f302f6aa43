#!/usr/bin/env node
/**
 * Checks the locale files against the code, the way CI should:
 *   1. runs `npm run i18n:extract` (the script from package.json) into a temporary
 *      file and fails if lang/en.json differs (someone changed a message without
 *      extracting);
 *   2. fails if another language of the list (lang/languages.ts) has no lang/<code>.json,
 *      or its file lacks a key of en.json, has an extra one, has an empty text, or uses
 *      other {arguments} than en.
 * Usage: node scripts/check-locales.mjs [--fix-en]   (--fix-en rewrites en.json first)
 * Exits 1 with a list of problems, 0 when everything matches.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The languages whose files are checked against en.json: every code of lang/languages.ts but
 * en. Run as a script, tsx (a dependency: the stand-in runs on it) is registered first so that
 * Node 20 can import the TypeScript list; under vitest, Vite loads it.
 */
export async function checkedLanguages() {
  const { LANGUAGES } = await import('../lang/languages.ts');
  return LANGUAGES.map((language) => language.code).filter((code) => code !== 'en');
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function extract() {
  const script = readJson(join(ROOT, 'package.json')).scripts['i18n:extract'];
  if (!script || !script.includes('--out-file lang/en.json')) throw new Error('package.json i18n:extract must write --out-file lang/en.json');
  const dir = mkdtempSync(join(tmpdir(), 'check-locales-'));
  try {
    const outFile = join(dir, 'en.json');
    execSync(script.replace('--out-file lang/en.json', `--out-file ${JSON.stringify(outFile)}`), {
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return readJson(outFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The {argument} names of an ICU message, sorted. */
const argumentNames = (text) => [...text.matchAll(/\{\s*([A-Za-z_]\w*)\s*[,}]/g)].map((m) => m[1]).sort().join(',');

export async function checkLocales({ fixEn = false } = {}) {
  const problems = [];
  const extracted = extract();
  const enFile = join(ROOT, 'lang/en.json');
  if (fixEn) writeFileSync(enFile, `${JSON.stringify(extracted, null, 2)}\n`);
  const en = readJson(enFile);
  for (const id of Object.keys(extracted)) {
    if (!(id in en)) problems.push(`en.json: missing ${id} (run npm run i18n:extract)`);
    else if (en[id] !== extracted[id]) problems.push(`en.json: ${id} differs from the code (run npm run i18n:extract)`);
  }
  for (const id of Object.keys(en)) if (!(id in extracted)) problems.push(`en.json: ${id} is no longer in the code (run npm run i18n:extract)`);
  return [...problems, ...translationProblems(en, await checkedLanguages())];
}

/** What is wrong with the files of `langs` against en's messages. */
export function translationProblems(en, langs) {
  const problems = [];
  for (const lang of langs) {
    const file = join(ROOT, `lang/${lang}.json`);
    if (!existsSync(file)) {
      problems.push(`${lang}.json: no such file (lang/languages.ts lists ${lang}; copy lang/en.json and translate it)`);
      continue;
    }
    const messages = readJson(file);
    for (const [id, source] of Object.entries(en)) {
      const text = messages[id];
      if (typeof text !== 'string') problems.push(`${lang}.json: missing ${id}`);
      else if (text.trim() === '') problems.push(`${lang}.json: empty ${id}`);
      else if (argumentNames(text) !== argumentNames(source)) problems.push(`${lang}.json: ${id} has arguments {${argumentNames(text)}}, en has {${argumentNames(source)}}`);
    }
    for (const id of Object.keys(messages)) if (!(id in en)) problems.push(`${lang}.json: extra ${id}`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { register } = await import('tsx/esm/api');
  register();
  const problems = await checkLocales({ fixEn: process.argv.includes('--fix-en') });
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} locale problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`locales: en.json matches the code; ${(await checkedLanguages()).join(', ')} have every key\n`);
}
