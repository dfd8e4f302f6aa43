/**
 * The pre-session screen's static shell (index.html, #shell): painted before any script,
 * filled in by src/early.ts from the userinfo answer, taken away once React's own screen
 * is on the page. It is a fixed layer above the app, so removing it shifts nothing.
 */
import type { Lang } from '../features/locale/langs.ts';

const SHELL_ID = 'shell';

/** What the shell says when the app itself could not be loaded (it has no messages of its own yet). */
export const SHELL_LOAD_FAILED: Record<Lang, string> = {
  zh: '页面加载失败，请检查网络后点此刷新。',
  cht: '頁面載入失敗，請檢查網路後點此重新整理。',
  en: 'The page could not be loaded. Check your connection and tap here to reload.',
  jp: 'ページを読み込めませんでした。接続を確認して、ここをタップして再読み込みしてください。',
  kor: '페이지를 불러오지 못했습니다. 연결을 확인하고 여기를 눌러 새로고침하세요.',
};

/** Removes the shell; React calls it in a layout effect, so the two never show a frame apart. */
export function dismissShell(doc: Document = document): void {
  doc.getElementById(SHELL_ID)?.remove();
}

/** Puts the account's photo and title into the shell (nothing when it is already gone). */
export function fillShell(info: { photoUrl: string | null; title: string | null }, doc: Document = document): void {
  const shell = doc.getElementById(SHELL_ID);
  if (!shell) return;
  const photo = shell.querySelector('.shell__photo');
  if (info.photoUrl && photo && !photo.firstChild) {
    const img = doc.createElement('img');
    img.alt = '';
    img.src = info.photoUrl;
    photo.append(img);
  }
  const title = shell.querySelector('.shell__title');
  if (info.title && title) title.textContent = info.title;
}

/** Asks the browser for an image now, at high priority, so the screen that shows it finds it cached. */
export function preloadImage(url: string, doc: Document = document): void {
  const link = doc.createElement('link');
  link.rel = 'preload';
  link.as = 'image';
  link.href = url;
  link.setAttribute('fetchpriority', 'high');
  doc.head.append(link);
}

/**
 * The app's own code could not be loaded (the network dropped): the shell's Start chat
 * bar, which would do nothing, becomes a link that reloads the page, saying why. The
 * shell then takes taps and is read by assistive technology.
 */
export function showShellLoadFailure(lang: Lang, doc: Document = document): void {
  const shell = doc.getElementById(SHELL_ID);
  const action = shell?.querySelector('.shell__action');
  if (!shell || !action) return;
  const reload = doc.createElement('a');
  reload.className = 'shell__action';
  // The page's own address: following it loads the page again.
  reload.href = doc.location.href;
  reload.setAttribute('role', 'alert');
  reload.textContent = SHELL_LOAD_FAILED[lang];
  action.replaceWith(reload);
  shell.removeAttribute('aria-hidden');
  reload.style.pointerEvents = 'auto';
}
