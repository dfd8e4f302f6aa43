/**
 * The pre-session screen's static shell (index.html, #shell): painted before any script,
 * filled in by src/early.ts from the userinfo answer, taken away once React's own screen
 * is on the page. It is a fixed layer above the app, so removing it shifts nothing.
 */
const SHELL_ID = 'shell';

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
