/**
 * The pre-session screen's static shell (index.html, #shell): painted before any script,
 * filled in by src/early.ts from the userinfo answer, taken away once React's own screen
 * is on the page. It is a fixed layer above the app, so removing it shifts nothing.
 */
import { byLang, type Lang } from '../features/locale/langs.ts';

const SHELL_ID = 'shell';

/** What the shell says when the app itself could not be loaded (it has no messages of its own yet). */
export const SHELL_LOAD_FAILED = byLang((language) => language.loadFailed);

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
