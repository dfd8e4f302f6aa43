/**
 * The stand-in's control endpoints (CONTRACT.md section 4), mounted only in the
 * local and test environments: faults, a scripted avatar reply, and the log of
 * what the stand-in saw.
 */
import { clearEvents, listEvents } from './events.ts';
import { activeFaults, clearFaults, FAULT_NAMES, isFaultName, setFaults } from './faults.ts';
import type { Logger } from './log.ts';
import { HttpError } from './http/body.ts';
import type { Route } from './http/router.ts';
import { customReply, ReplyValidationError } from './replies/reply.ts';
import type { RoomRegistry } from './rooms.ts';
import { STRIKE_FAULTS, strikeLiveRooms, type StrikeFault } from './signaling/liveFaults.ts';
import type { Signaling } from './signaling/server.ts';

export interface ControlDeps {
  signaling: Pick<Signaling, 'sayToLiveRooms'>;
  rooms: Pick<RoomRegistry, 'list'>;
  log: Logger;
}

export function controlRoutes(deps: ControlDeps): Route[] {
  const { log } = deps;
  return [
    {
      method: 'GET',
      path: '/__standin/faults',
      cors: true,
      handle: () => ({ status: 200, json: { faults: activeFaults() } }),
    },
    {
      method: 'POST',
      path: '/__standin/faults',
      body: 'json',
      cors: true,
      handle({ body }) {
        const names = (body as Record<string, unknown>).faults;
        if (!Array.isArray(names)) throw new HttpError(400, 'faults must be an array of fault names', { code: -1, msg: 'faults must be an array of fault names', valid: FAULT_NAMES });
        const unknown = names.filter((name) => !isFaultName(name));
        if (unknown.length > 0) {
          const msg = `unknown fault names: ${unknown.map((n) => JSON.stringify(n)).join(', ')}; valid: ${FAULT_NAMES.join(', ')}`;
          throw new HttpError(400, msg, { code: -1, msg, valid: FAULT_NAMES });
        }
        setFaults(names.filter(isFaultName));
        log.warn('faults set', { faults: activeFaults() });
        return { status: 200, json: { faults: activeFaults() } };
      },
    },
    {
      method: 'DELETE',
      path: '/__standin/faults',
      cors: true,
      handle() {
        clearFaults();
        log.info('faults cleared');
        return { status: 200, json: { faults: [] } };
      },
    },
    {
      method: 'POST',
      path: '/__standin/say',
      body: 'json',
      cors: true,
      handle({ body }) {
        let parts;
        try {
          parts = customReply(body as Record<string, unknown>);
        } catch (err) {
          if (err instanceof ReplyValidationError) throw new HttpError(400, err.message);
          throw err;
        }
        const rooms = deps.signaling.sayToLiveRooms(parts);
        if (rooms.length === 0) return { status: 409, json: { code: -1, msg: 'no live session: start a chat first' } };
        return { status: 200, json: { code: 0, rooms } };
      },
    },
    {
      // Beyond CONTRACT.md (PROTOCOL.md): drop the live sessions' signaling and/or media now, as often as asked.
      method: 'POST',
      path: '/__standin/strike',
      body: 'json',
      cors: true,
      handle({ body }) {
        const names = (body as Record<string, unknown>).faults;
        const valid = (n: unknown): n is StrikeFault => typeof n === 'string' && (STRIKE_FAULTS as readonly string[]).includes(n);
        if (!Array.isArray(names) || names.length === 0 || !names.every(valid)) {
          const msg = `faults must be a non-empty array of: ${STRIKE_FAULTS.join(', ')}`;
          throw new HttpError(400, msg, { code: -1, msg, valid: STRIKE_FAULTS });
        }
        const rooms = strikeLiveRooms(deps.rooms.list(), names, log);
        if (rooms.length === 0) return { status: 409, json: { code: -1, msg: 'no live session: start a chat first' } };
        return { status: 200, json: { code: 0, rooms } };
      },
    },
    {
      method: 'GET',
      path: '/__standin/events',
      cors: true,
      handle: () => ({ status: 200, json: listEvents() }),
    },
    {
      method: 'DELETE',
      path: '/__standin/events',
      cors: true,
      handle() {
        clearEvents();
        return { status: 204 };
      },
    },
  ];
}
