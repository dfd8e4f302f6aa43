import { afterEach, beforeEach } from 'vitest';
import { environment } from '../app/environments.ts';

/**
 * Gives the test environment, which has no special account, one for every test of the calling
 * file: the local environment's ('gov'). The environment object is set and restored around each
 * test rather than its module mocked, because the client tests share their modules across
 * files (isolate: false in vite.config.ts), so a mock would reach only a file that ran first.
 */
export function withSpecialAccount(id = 'gov'): void {
  let before = '';
  beforeEach(() => {
    before = environment.specialAccountId;
    environment.specialAccountId = id;
  });
  afterEach(() => {
    environment.specialAccountId = before;
  });
}
