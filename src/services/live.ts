/**
 * The routing and live services: POST /get/route, /start_live, /stop_live.
 * Every answer is checked; failures become a LiveError whose `kind` maps onto the
 * error catalogue (the session saga decides what the visitor sees).
 */
import { isFiniteNumber, isNonEmptyString, isObject, numberField, objectField, stringField } from './guards.ts';
import { HttpError, type HttpClient } from './http.ts';
import { createLogger } from './logger.ts';

const log = createLogger('live');

export type LiveErrorKind = 'routeRefused' | 'routeFailed' | 'startRefused' | 'startFailed';

export class LiveError extends Error {
  override readonly name = 'LiveError';
  constructor(
    readonly kind: LiveErrorKind,
    message: string,
    /** The server's own words (route `msg`, start_live `errmsg`), shown as is. */
    readonly serverText: string | null = null,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }

  get timedOut(): boolean {
    return this.cause instanceof HttpError && this.cause.kind === 'timeout';
  }
}

export interface RouteInfo {
  websockLink: string;
  /** Base URL of the media server; '' means the page's own origin. */
  srsLink: string;
  /**
   * ICE servers that came with the route (`data.iceServers`, an extension: the local stand-in
   * hands each session its own time-limited TURN credential this way). Absent: the build's own.
   */
  iceServers?: RTCIceServer[];
}

export interface StartedLive {
  roomId: string;
  systemType: string | null;
}

export interface LiveService {
  getRoute(params: { uid: string }, signal?: AbortSignal): Promise<RouteInfo>;
  startLive(params: { appId: string; uid: string; deviceId: string }, signal?: AbortSignal, timeoutMs?: number): Promise<StartedLive>;
  /** Resolves true when the server says the room is stopped (data.code 200002). */
  stopLive(params: { roomId: string; deviceId: string }, signal?: AbortSignal): Promise<boolean>;
}

export interface LiveConfig {
  routingServiceUrl: string;
  liveServiceUrl: string;
  serverName: string;
  /** Replaces the srsLink of /get/route when set (deployments behind a proxy). */
  mediaServerUrl: string | null;
}

const MAX_ID_LENGTH = 256;

function wsUrl(value: unknown): string | null {
  if (!isNonEmptyString(value)) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'ws:' || url.protocol === 'wss:' ? url.href : null;
  } catch {
    return null;
  }
}

/** '' (same origin) or an absolute http(s) base without the trailing slash. */
function srsBase(value: unknown): string | null {
  if (value === '' || value === undefined || value === null) return '';
  if (!isNonEmptyString(value)) return null;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

const MAX_ICE_SERVERS = 4;
const MAX_ICE_URLS = 8;
const MAX_CREDENTIAL_LENGTH = 512;

function iceUrl(value: unknown): string | null {
  return typeof value === 'string' && value.length <= 512 && /^(stun|stuns|turn|turns):[^\s]+$/.test(value) ? value : null;
}

/** `data.iceServers` when it is a well-formed list of STUN/TURN servers; anything else is ignored. */
function routeIceServers(value: unknown): RTCIceServer[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ICE_SERVERS) return invalidIce();
  const servers: RTCIceServer[] = [];
  for (const entry of value) {
    if (!isObject(entry)) return invalidIce();
    const rawUrls = Array.isArray(entry.urls) ? entry.urls : [entry.urls];
    const urls = rawUrls.map(iceUrl);
    if (urls.length === 0 || urls.length > MAX_ICE_URLS || urls.some((u) => u === null)) return invalidIce();
    const username = entry.username;
    const credential = entry.credential;
    const fits = (v: unknown) => v === undefined || (typeof v === 'string' && v.length <= MAX_CREDENTIAL_LENGTH);
    if (!fits(username) || !fits(credential)) return invalidIce();
    servers.push({ urls: urls as string[], ...(typeof username === 'string' ? { username } : {}), ...(typeof credential === 'string' ? { credential } : {}) });
  }
  return servers;
}

function invalidIce(): undefined {
  log.warn('route: iceServers ignored (not a list of STUN/TURN servers); using the build\'s');
  return undefined;
}

export function parseRouteResponse(body: unknown, mediaServerUrl: string | null): RouteInfo {
  if (!isObject(body)) throw new LiveError('routeFailed', 'route: answer is not an object');
  const code = numberField(body, 'code');
  if (code === 1) {
    const msg = stringField(body, 'msg');
    throw new LiveError('routeRefused', `route refused: ${msg ?? ''}`, isNonEmptyString(msg) ? msg : null);
  }
  if (code !== 0) throw new LiveError('routeFailed', `route: code ${String(body.code)}`);
  const data = objectField(body, 'data');
  const websockLink = data ? wsUrl(data.websockLink) : null;
  const srsLink = mediaServerUrl !== null ? srsBase(mediaServerUrl) : data ? srsBase(data.srsLink) : null;
  if (!websockLink || srsLink === null) throw new LiveError('routeFailed', 'route: missing or unsafe links');
  const iceServers = routeIceServers(data?.iceServers);
  return { websockLink, srsLink, ...(iceServers ? { iceServers } : {}) };
}

export function parseStartLiveResponse(body: unknown): StartedLive {
  if (!isObject(body)) throw new LiveError('startFailed', 'start_live: answer is not an object');
  if (body.status === 'error') {
    const errmsg = stringField(body, 'errmsg');
    throw new LiveError('startRefused', `start_live refused: ${errmsg ?? ''}`, isNonEmptyString(errmsg) ? errmsg : null);
  }
  const rawRoom = body.room_id;
  const roomId = isFiniteNumber(rawRoom) ? String(rawRoom) : stringField(body, 'room_id');
  if (body.status !== 'success' || !isNonEmptyString(roomId) || roomId.length > MAX_ID_LENGTH) {
    throw new LiveError('startFailed', 'start_live: no room in the answer');
  }
  return { roomId, systemType: stringField(body, 'system_type') };
}

function wrap(kind: LiveErrorKind, what: string, error: unknown): never {
  if (error instanceof LiveError) throw error;
  if (error instanceof HttpError && error.kind === 'aborted') throw error;
  log.warn(`${what} failed`, { error: String(error) });
  throw new LiveError(kind, `${what}: ${String(error)}`, null, error);
}

export function createLiveService(http: HttpClient, config: LiveConfig): LiveService {
  return {
    async getRoute({ uid }, signal) {
      try {
        const body = await http.postJson(`${config.routingServiceUrl}/get/route`, { uid, serverName: config.serverName }, { signal });
        return parseRouteResponse(body, config.mediaServerUrl);
      } catch (error) {
        return wrap('routeFailed', 'get/route', error);
      }
    },
    async startLive({ appId, uid, deviceId }, signal, timeoutMs) {
      try {
        const body = await http.postJson(
          `${config.liveServiceUrl}/start_live`,
          { app_id: appId, uid, device_id: deviceId },
          timeoutMs === undefined ? { signal } : { signal, timeoutMs },
        );
        return parseStartLiveResponse(body);
      } catch (error) {
        return wrap('startFailed', 'start_live', error);
      }
    },
    async stopLive({ roomId, deviceId }, signal) {
      const body = await http.postJson(`${config.liveServiceUrl}/stop_live`, { room_id: roomId, device_id: deviceId }, { signal });
      const data = isObject(body) ? objectField(body, 'data') : null;
      const stopped = data !== null && numberField(data, 'code') === 200002;
      if (!stopped) log.warn('stop_live did not confirm the stop', { roomId });
      return stopped;
    },
  };
}
