/**
 * The page's entry, small on purpose: it asks the user service for the account, shows
 * the avatar's photo and title in the static shell (index.html) as soon as the answer
 * names them, and then runs the app (main.tsx, a chunk of its own, preloaded by index.html
 * so that it downloads meanwhile). The app's boot saga
 * takes this answer as its first attempt (services/earlyRequest.ts). The app's
 * stylesheet comes with its chunk, so nothing but this file and the HTML stands before
 * the first paint.
 */
import { APP_VERSION, environment } from './app/environments.ts';
import { parseRoute } from './app/routes.ts';
import { dismissShell, fillShell, preloadImage } from './app/shell.ts';
import { afterNextPaint } from './services/afterPaint.ts';
import { parseUserInfoResponse, userInfoFields, userInfoUrl } from './services/account.ts';
import { startEarlyRequest } from './services/earlyRequest.ts';
import { formRequest } from './services/http.ts';

/** The longest the app waits for the shell's photo to paint (a slow photo, a page in a background tab). */
const PHOTO_WAIT_MS = 2000;

const route = parseRoute(window.location);
let photoPainted: Promise<unknown> = Promise.resolve();
if (route.kind !== 'home') {
  // No account to show: the replay viewer, or a URL that loads nothing (spec section 2).
  dismissShell();
} else {
  photoPainted = startEarlyRequest(userInfoUrl(environment.userServiceUrl), formRequest(userInfoFields(route.id, APP_VERSION)))
    .then((response) => (response.ok ? response.clone().json() : null))
    .then(async (body: unknown) => {
      const result = parseUserInfoResponse(body);
      if (!result.valid) return;
      if (result.info.photoUrl) preloadImage(result.info.photoUrl);
      const img = fillShell(result.info);
      if (!img) return;
      await img.decode();
      await afterNextPaint();
    })
    // The app's own request handling reports failures; the shell just stays plain.
    .catch(() => {});
}

// The app is evaluated once the shell's photo, the page's largest paint, is on screen (and
// never before the shell's first frame): half a megabyte of script to run would otherwise
// hold those paints back. Its download started with the page (modulepreload). Lighthouse's
// simulation counts a script evaluated before the largest paint, and its download, as on
// that paint's path; evaluated after it, neither. A page opened in a background tab gets
// no frames: the timer starts the app there.
let started = false;
const startApp = () => {
  if (started) return;
  started = true;
  void import('./main.tsx');
};
const firstFrame = new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
void Promise.race([Promise.all([firstFrame, photoPainted]), new Promise((resolve) => setTimeout(resolve, PHOTO_WAIT_MS))]).then(startApp);
