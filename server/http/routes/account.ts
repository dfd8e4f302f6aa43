/** POST /ue/userinfo: the user service (spec section 7). */
import { accountInfo } from '../../accounts.ts';
import { HttpError } from '../body.ts';
import type { Route } from '../router.ts';

export function accountRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/ue/userinfo',
      body: 'form',
      record: true,
      cors: true,
      handle({ body, origin }) {
        const fields = body as Record<string, unknown>;
        const uid = typeof fields.uid === 'string' ? fields.uid.trim() : '';
        if (uid === '') throw new HttpError(400, 'uid required', { code: 1, msg: 'uid required' });
        if (uid.length > 200) throw new HttpError(400, 'uid too long', { code: 1, msg: 'uid too long' });
        return { status: 200, json: { code: 0, data: accountInfo(uid, origin.http) } };
      },
    },
  ];
}
