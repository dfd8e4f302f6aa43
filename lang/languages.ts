/**
 * The product's languages, in the order the picker shows them: the one list that the app,
 * the stand-in, scripts/check-locales.mjs and the tests read. A language's texts are
 * lang/<code>.json beside it. Adding one: docs/decisions.md, "Adding a language";
 * scripts/languages.test.ts names every place that does not cover it.
 *
 * No imports and no DOM: the app's first module, the stand-in (which imports nothing from
 * src/) and a Node script all load this file.
 */

export interface LanguageSpec {
  /** The app's code: the stored `lang` (docs/contract.md C19), `data.lang` on the wire (PROTOCOL.md), lang/<code>.json. */
  readonly code: string;
  /** Its name in its own script: the picker's radio and its accessible name (docs/contract.md C17), read in every locale. */
  readonly name: string;
  /** The short mark on the header's Language button. */
  readonly mark: string;
  /** The BCP 47 tag for Intl, react-intl and `<html lang>`. */
  readonly intl: string;
  /** The Speech service's recognition locale (docs/requirements.md R116). */
  readonly recognition: string;
  /**
   * The browser languages it is picked from (docs/requirements.md V1): tags whose first subtag
   * is `language` and, when `anyOf` is given, with one of those later subtags (a region or a
   * script). A tag matching a language with `anyOf` goes to it before one without.
   */
  readonly matchedFrom: { readonly language: string; readonly anyOf?: readonly string[] };
  /** Written without spaces between words: a call's phrases are joined as they are (sentences.ts). */
  readonly unspaced: boolean;
  /**
   * Words a question does not end on (articles, prepositions, conjunctions, particles, fillers):
   * a call's sentence whose words stop on one waits for the visitor to go on (D8,
   * src/features/voice/turnEnd.ts). Unspaced languages match the end of the text; spaced ones
   * the last word, or its end where `particlesAttach` (Korean writes its particles onto the word).
   */
  readonly openEnds: readonly string[];
  readonly particlesAttach: boolean;
  /** What the page says when the app's own code could not be loaded: no messages are loaded then (src/app/shell.ts). */
  readonly loadFailed: string;
}

export const LANGUAGES = [
  {
    code: 'zh',
    name: '简体中文',
    mark: '简',
    intl: 'zh-CN',
    recognition: 'zh-CN',
    matchedFrom: { language: 'zh' },
    unspaced: true,
    openEnds: ['的', '在', '和', '跟', '与', '或', '或者', '是', '从', '到', '给', '把', '被', '对', '向', '往', '关于', '还有', '那个', '这个', '哪个', '一个', '因为', '所以', '但是', '如果', '就是', '然后', '请问', '那', '嗯', '呃'],
    particlesAttach: false,
    loadFailed: '页面加载失败，请检查网络后点此刷新。',
  },
  {
    code: 'cht',
    name: '繁體中文',
    mark: '繁',
    intl: 'zh-TW',
    recognition: 'zh-TW',
    matchedFrom: { language: 'zh', anyOf: ['tw', 'hk', 'mo', 'hant'] },
    unspaced: true,
    openEnds: ['的', '在', '和', '跟', '與', '或', '或者', '是', '從', '到', '給', '把', '被', '對', '向', '往', '關於', '還有', '那個', '這個', '哪個', '一個', '因為', '所以', '但是', '如果', '就是', '然後', '請問', '那', '嗯', '呃'],
    particlesAttach: false,
    loadFailed: '頁面載入失敗，請檢查網路後點此重新整理。',
  },
  {
    code: 'en',
    name: 'English',
    mark: 'EN',
    intl: 'en',
    recognition: 'en-US',
    matchedFrom: { language: 'en' },
    unspaced: false,
    openEnds: ['a', 'an', 'the', 'of', 'to', 'in', 'on', 'at', 'for', 'with', 'from', 'about', 'by', 'near', 'into', 'than', 'between', 'and', 'or', 'but', 'because', 'if', 'that', 'is', 'are', 'was', 'were', 'do', 'does', 'did', 'can', 'could', 'will', 'would', 'should', 'what', 'where', 'when', 'which', 'who', 'how', 'why', 'whose', 'i', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'this', 'these', 'those', 'some', 'any', 'me', 'um', 'uh', 'er', 'erm'],
    particlesAttach: false,
    loadFailed: 'The page could not be loaded. Check your connection and tap here to reload.',
  },
  {
    code: 'jp',
    name: '日本語',
    mark: '日',
    intl: 'ja',
    recognition: 'ja-JP',
    matchedFrom: { language: 'ja' },
    unspaced: true,
    openEnds: ['は', 'が', 'を', 'に', 'で', 'と', 'や', 'へ', 'から', 'まで', 'より', 'って', 'けど', 'ので', 'その', 'この', 'あの', 'えっと', 'ええと'],
    particlesAttach: false,
    loadFailed: 'ページを読み込めませんでした。接続を確認して、ここをタップして再読み込みしてください。',
  },
  {
    code: 'kor',
    name: '한국어',
    mark: '한',
    intl: 'ko',
    recognition: 'ko-KR',
    matchedFrom: { language: 'ko' },
    unspaced: false,
    openEnds: ['은', '는', '이', '가', '을', '를', '의', '에', '에서', '와', '과', '하고', '그리고', '그런데', '근데', '그', '저', '저기', '음', '어'],
    particlesAttach: true,
    loadFailed: '페이지를 불러오지 못했습니다. 연결을 확인하고 여기를 눌러 새로고침하세요.',
  },
] as const satisfies readonly LanguageSpec[];

export type Lang = (typeof LANGUAGES)[number]['code'];
export type Language = (typeof LANGUAGES)[number];

export const LANGS: readonly Lang[] = LANGUAGES.map((language) => language.code);

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** The entry of `lang`. */
export function languageOf(lang: Lang): Language {
  return LANGUAGES.find((language) => language.code === lang)!;
}

/** One value of each language, as a table keyed by code (names, tags, locales). */
export function byLang<T>(value: (language: Language) => T): Readonly<Record<Lang, T>> {
  return Object.fromEntries(LANGUAGES.map((language) => [language.code, value(language)])) as Record<Lang, T>;
}

/** The language a browser tag (`navigator.languages`, Accept-Language) asks for, or null. */
export function langFromTag(tag: string): Lang | null {
  const [first, ...rest] = tag.trim().toLowerCase().split('-');
  const candidates = LANGUAGES.filter((language) => language.matchedFrom.language === first);
  const specific = candidates.find((language) => 'anyOf' in language.matchedFrom && language.matchedFrom.anyOf.some((subtag) => rest.includes(subtag)));
  return (specific ?? candidates.find((language) => !('anyOf' in language.matchedFrom)))?.code ?? null;
}
