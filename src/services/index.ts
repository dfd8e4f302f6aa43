/**
 * The real adapters of the first chunk, as the sagas get them (saga context): main.tsx
 * calls createCoreServices() once and passes the result to makeStore. The live session's
 * adapters come with the live chunk (liveServices.ts).
 */
import { APP_VERSION, environment } from '../app/environments.ts';
import type { CoreServices } from '../sagas/context.ts';
import { createAccountService } from './account.ts';
import { earlyFetch } from './earlyRequest.ts';
import { createHttp } from './http.ts';
import { createBrowserPlatform } from './platform.ts';
import { createBrowserStorage } from './storage.ts';

export function createCoreServices(): CoreServices {
  // The first /ue/userinfo may already be on its way (src/early.ts): the client takes its answer.
  const http = createHttp({ fetch: earlyFetch() });
  return {
    account: createAccountService(http, { userServiceUrl: environment.userServiceUrl, version: APP_VERSION }),
    storage: createBrowserStorage(),
    platform: createBrowserPlatform(),
  };
}
