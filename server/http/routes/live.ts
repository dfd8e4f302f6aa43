/**
 * The routing service (POST /get/route) and the live service (POST /start_live,
 * POST /stop_live) of docs/requirements.md R76, R77 and R78, with their faults (docs/contract.md C12).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { faultsChange, hasFault } from '../../faults.ts';
import type { Logger } from '../../log.ts';
import type { RoomRegistry } from '../../rooms.ts';
import { turnCredential } from '../../turn.ts';
import { HttpError, requireString } from '../body.ts';
import { clientAddress } from '../clients.ts';
import { hostName } from '../hosts.ts';
import type { Route, RouteContext } from '../router.ts';

export interface LiveDeps {
  rooms: RoomRegistry;
  log: Logger;
  /** How long the start-live-slow fault holds the answer (20 s by contract). */
  slowStartMs: number;
  /** The longest the start-live-late fault holds the answer of a room already made (until the fault is cleared). */
  lateStartMs: number;
  /** Aborted when the stand-in closes, so a held answer does not keep it alive. */
  shutdown: AbortSignal;
  /** The TURN relay (coturn on UDP at the HTTP port's number), when there is one. */
  relay?: { secret: string; available(): boolean; port(): number };
}

/**
 * The relay for this page, with a credential of its own (server/README.md, *The TURN relay*): at the
 * host the page used, on UDP at the stand-in's port number. An extension of the route answer:
 * a client takes it when present and keeps its build's ICE servers otherwise.
 */
function iceServers(relay: LiveDeps['relay'], req: RouteContext['req'], fallbackHost: string): RTCIceServerJson[] | null {
  if (!relay?.available()) return null;
  const host = hostName(req.headers.host ?? '') ?? hostName(fallbackHost) ?? '127.0.0.1';
  const shown = host.includes(':') ? `[${host}]` : host;
  const { username, credential } = turnCredential(relay.secret);
  return [{ urls: [`turn:${shown}:${relay.port()}?transport=udp`], username, credential }];
}

interface RTCIceServerJson {
  urls: string[];
  username: string;
  credential: string;
}

/** A required string field, with the error shaped like the service's own answers. */
function field(body: unknown, name: string, shape: (msg: string) => unknown): string {
  try {
    return requireString(body as Record<string, unknown>, name);
  } catch (err) {
    const msg = (err as Error).message;
    throw new HttpError(400, msg, shape(msg));
  }
}

export function liveRoutes(deps: LiveDeps): Route[] {
  const { rooms, log } = deps;
  const startError = (errmsg: string) => ({ status: 'error', errmsg });
  const stopError = (code: number, msg: string) => ({ data: { code, msg } });
  /** Holds an answer for a fault; false when the client gave up (or the stand-in closes) meanwhile. */
  const hold = async (ms: number, signal: AbortSignal): Promise<boolean> => {
    try {
      await sleep(ms, undefined, { signal: AbortSignal.any([signal, deps.shutdown]) });
      return true;
    } catch {
      return false;
    }
  };

  /** Holds an answer until the faults change (are cleared), at most `ms`; false as `hold`. */
  const holdUntilCleared = async (ms: number, signal: AbortSignal): Promise<boolean> => {
    const held = AbortSignal.any([signal, deps.shutdown, AbortSignal.timeout(ms)]);
    await faultsChange(held);
    return !signal.aborted && !deps.shutdown.aborted;
  };

  return [
    {
      method: 'POST',
      path: '/get/route',
      body: 'json',
      record: true,
      cors: true,
      handle({ req, body, origin }) {
        if (hasFault('route-error')) return { status: 500, json: { code: -1, msg: 'routing service failure (fault route-error)' } };
        if (hasFault('route-code1')) return { status: 200, json: { code: 1, msg: 'route refused' } };
        field(body, 'uid', (msg) => ({ code: -1, msg }));
        const ice = iceServers(deps.relay, req, new URL(origin.http).host);
        return {
          status: 200,
          json: {
            code: 0,
            msg: 'ok',
            // The 3D renderer link of the real service; this client does not use it.
            data: { webglLin: '', websockLink: `${origin.ws}/ws/signaling`, srsLink: origin.http, ...(ice ? { iceServers: ice } : {}) },
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/start_live',
      body: 'json',
      record: true,
      cors: true,
      async handle({ req, body, signal }) {
        if (hasFault('start-live-error')) return { status: 200, json: startError('no avatar available') };
        // A refusal without words of its own, and a live service that is down (a gateway's 503, no JSON).
        if (hasFault('start-live-error-empty')) return { status: 200, json: startError('') };
        if (hasFault('start-live-down')) return { status: 503, text: 'Service Unavailable' };
        const shape = (msg: string) => startError(msg);
        const init = { appId: field(body, 'app_id', shape), uid: field(body, 'uid', shape), deviceId: field(body, 'device_id', shape) };
        if (hasFault('start-live-slow') && !(await hold(deps.slowStartMs, signal))) {
          // No room was made yet, so nothing leaks when the client gives up.
          log.info('start_live abandoned while held by the start-live-slow fault', { uid: init.uid });
          return null;
        }
        let room;
        // The address it came from is the owner's (server/README.md, *Who owns a room*), and
        // holds at most its share of the rooms.
        const address = clientAddress(req);
        try {
          room = rooms.create({ ...init, address });
        } catch (err) {
          log.error('could not start a media pipeline', { error: String(err) });
          return { status: 200, json: startError('no avatar available') };
        }
        if (!room) {
          // Answered as the service answers a start it cannot serve (the start-live-error fault's
          // shape), so the app shows the text.
          const why = rooms.refusal(address);
          if (why?.reason === 'address') {
            log.warn('start_live refused: this address holds its share of the rooms', { address, held: why.held, limit: why.limit });
            return {
              status: 200,
              json: startError(`no avatar available: this device already has ${why.held} chats open, the most one device may; end one, or wait a few seconds after closing a page`),
            };
          }
          log.warn('start_live refused: every avatar is busy', { rooms: rooms.size });
          return { status: 200, json: startError('no avatar available') };
        }
        // The room exists from here on, as on the real service; only the answer is late: held
        // until the fault is cleared (or lateStartMs), so a test decides when it comes instead
        // of racing it. A client that gives up on the request never learns the id: the room
        // is left to the idle reclaim.
        if (hasFault('start-live-late') && !(await holdUntilCleared(deps.lateStartMs, signal))) {
          log.info('start_live abandoned by the client while held by the start-live-late fault', { roomId: room.id });
          return null;
        }
        return { status: 200, json: { status: 'success', room_id: room.id, system_type: 'standin' } };
      },
    },
    {
      method: 'POST',
      path: '/stop_live',
      body: 'json',
      record: true,
      cors: true,
      async handle({ body }) {
        const shape = (msg: string) => stopError(400, msg);
        const roomId = field(body, 'room_id', shape);
        const deviceId = field(body, 'device_id', shape);
        const room = rooms.get(roomId);
        if (!room) return { status: 404, json: stopError(404, `room not found: ${roomId}`) };
        if (room.deviceId !== deviceId) return { status: 403, json: stopError(403, 'device_id does not own this room') };
        await rooms.stop(roomId, 'stop_live');
        return { status: 200, json: stopError(200002, 'stopped') };
      },
    },
  ];
}
