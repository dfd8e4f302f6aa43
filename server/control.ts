/**
 * The stand-in's control endpoints (docs/contract.md C11, C12, C13 and C14), mounted only in the
 * local and test environments: faults, a scripted avatar reply, and the log of
 * what the stand-in saw.
 *
 * They are for the people and tests on this machine, not for whatever page a
 * visitor has open in another tab: no CORS, another origin's request refused
 * (403), and a body only as application/json (415), since a cross-site form or
 * fetch can send text/plain without a preflight.
 */
import type { IncomingMessage } from 'node:http';
import { clearEvents, eventsJson } from './events.ts';
import { activeFaults, clearFaults, FAULT_NAMES, isFaultName, setFaults } from './faults.ts';
import type { Logger } from './log.ts';
import { HttpError } from './http/body.ts';
import { crossSiteRefusal } from './http/origin.ts';
import type { Route } from './http/router.ts';
import { customReply, ReplyValidationError } from './replies/reply.ts';
import type { RoomRegistry } from './rooms.ts';
import { STRIKE_FAULTS, strikeLiveRooms, type StrikeFault } from './signaling/liveFaults.ts';
import type { Signaling } from './signaling/server.ts';

export interface ControlDeps {
  signaling: Pick<Signaling, 'sayToLiveRooms'>;
  rooms: Pick<RoomRegistry, 'list'>;
  log: Logger;
  /**
   * A further rule on who may use the controls (e.g. loopback addresses only
   * when serving a LAN); false answers 403.
   */
  controlAllowed?: (req: IncomingMessage) => boolean;
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function hasBody(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return req.headers['transfer-encoding'] !== undefined || (Number.isFinite(length) && length > 0);
}

/** The rules of docs/contract.md C11 for a control request, before its body is read. */
export function controlGuard(allowed: ControlDeps['controlAllowed']) {
  return (req: IncomingMessage): HttpError | null => {
    const crossSite = crossSiteRefusal(req);
    if (crossSite) return new HttpError(403, `${crossSite}: the stand-in's controls answer only its own pages and local tools`);
    if (allowed && !allowed(req)) return new HttpError(403, "this client may not use the stand-in's controls");
    if (hasBody(req) && mediaType(req) !== 'application/json') {
      return new HttpError(415, `a control request's body must be Content-Type: application/json, not ${JSON.stringify(mediaType(req) || 'none').slice(0, 80)}`);
    }
    return null;
  };
}

export function controlRoutes(deps: ControlDeps): Route[] {
  const { log } = deps;
  const guard = controlGuard(deps.controlAllowed);
  const routes: Omit<Route, 'guard'>[] = [
    {
      method: 'GET',
      path: '/__standin/faults',
      handle: () => ({ status: 200, json: { faults: activeFaults() } }),
    },
    {
      method: 'POST',
      path: '/__standin/faults',
      body: 'json',
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
      // Beyond docs/contract.md (server/README.md): drop the live sessions' signaling and/or media now, as often as asked.
      method: 'POST',
      path: '/__standin/strike',
      body: 'json',
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
      handle: () => ({ status: 200, text: eventsJson(), contentType: 'application/json; charset=utf-8' }),
    },
    {
      method: 'DELETE',
      path: '/__standin/events',
      handle() {
        clearEvents();
        return { status: 204 };
      },
    },
  ];
  return routes.map((route) => ({ ...route, guard }));
}
