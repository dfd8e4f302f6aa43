/** Types of scripts/check-locales.mjs for the TypeScript tests that import it. */

/** Every problem of the locale files: en.json against the code, each other language's file against en.json. */
export function checkLocales(options?: { fixEn?: boolean }): Promise<string[]>;

/** The codes whose files are checked against en.json: every language of lang/languages.ts but en. */
export function checkedLanguages(): Promise<string[]>;

/** What is wrong with the files of `langs` against en's messages. */
export function translationProblems(en: Record<string, string>, langs: readonly string[]): string[];
