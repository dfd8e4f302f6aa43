/** POST /ue/userinfo: the user service (docs/requirements.md R75). */
import { accountInfo, accountLang } from '../../accounts.ts';
import { faultsGeneration, hasFault } from '../../faults.ts';
import { HttpError } from '../body.ts';
import type { Route } from '../router.ts';

export function accountRoutes(): Route[] {
  // userinfo-flaky's count of requests, since the faults were last set.
  const flaky = { generation: -1, count: 0 };
  return [
    {
      method: 'POST',
      path: '/ue/userinfo',
      body: 'form',
      record: true,
      cors: true,
      handle({ req, body, origin }) {
        if (hasFault('userinfo-error')) throw new HttpError(503, 'user service unavailable (fault userinfo-error)');
        // Every other request fails: a client that retries once gets through.
        if (flaky.generation !== faultsGeneration()) Object.assign(flaky, { generation: faultsGeneration(), count: 0 });
        if (hasFault('userinfo-flaky') && flaky.count++ % 2 === 0) throw new HttpError(503, 'user service unavailable (fault userinfo-flaky)');
        const fields = body as Record<string, unknown>;
        const uid = typeof fields.uid === 'string' ? fields.uid.trim() : '';
        if (uid === '') throw new HttpError(400, 'uid required', { code: 1, msg: 'uid required' });
        if (uid.length > 200) throw new HttpError(400, 'uid too long', { code: 1, msg: 'uid too long' });
        const lang = accountLang(fields.lang, req.headers['accept-language']);
        return { status: 200, json: { code: 0, data: accountInfo(uid, origin.http, lang) } };
      },
    },
  ];
}
