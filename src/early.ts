/**
 * The page's entry, small on purpose: it asks the user service for the account, then
 * loads the app (main.tsx, a chunk of its own, preloaded by index.html) while that
 * request runs; it preloads the avatar's photo as soon as the answer names it and shows
 * photo and title in the static shell (index.html). The app's boot saga takes this
 * answer as its first attempt (services/earlyRequest.ts). The app's stylesheet comes
 * with its chunk, so nothing but this file and the HTML stands before the first paint.
 */
import { APP_VERSION, environment } from './app/environments.ts';
import { parseRoute } from './app/routes.ts';
import { dismissShell, fillShell, preloadImage, showShellLoadFailure } from './app/shell.ts';
import { pickInitialLang, readStoredLang } from './features/locale/langs.ts';
import { parseUserInfoResponse, userInfoFields, userInfoUrl } from './services/account.ts';
import { startEarlyRequest } from './services/earlyRequest.ts';
import { warmUpIntl } from './app/warmUp.ts';
import { nextTask } from './services/afterPaint.ts';
import { formRequest } from './services/http.ts';

const route = parseRoute(window.location);
if (route.kind !== 'home') {
  // No account to show: the replay viewer, or a URL that loads nothing (docs/requirements.md R9).
  dismissShell();
} else {
  startEarlyRequest(userInfoUrl(environment.userServiceUrl), formRequest(userInfoFields(route.id, APP_VERSION)))
    .then((response) => (response.ok ? response.clone().json() : null))
    .then((body: unknown) => {
      const result = parseUserInfoResponse(body);
      if (!result.valid) return;
      if (result.info.photoUrl) preloadImage(result.info.photoUrl);
      fillShell(result.info);
    })
    // The app's own request handling reports failures; the shell just stays plain.
    .catch(() => {});
}

// The app is evaluated after the shell's first frame: 370 KB of script to run would
// otherwise hold that paint back. Its download started with the page (modulepreload). On a
// slow phone its start is one long task unless cut: the libraries are evaluated in one task,
// the first Intl call's set-up is another (react-intl would make it while React renders the
// first screen), the app's modules a third, and main.tsx mounts in a fourth. Lighthouse's
// total blocking time, median of 5 runs, went from 85 to 48 ms (bench/README.md, lighthouse).
// A page opened in a background tab gets no frames: the timer starts the app there.
let started = false;
const startApp = () => {
  if (started) return;
  started = true;
  import('./app/libraries.ts')
    .then(nextTask)
    .then(warmUpIntl)
    .then(nextTask)
    .then(() => import('./main.tsx'))
    .catch(() => showShellLoadFailure(pickInitialLang(readStoredLang(), navigator.languages ?? [])));
};
requestAnimationFrame(() => setTimeout(startApp, 0));
setTimeout(startApp, 250);
