/**
 * The stand-in: one node:http server imitating, on one origin, the user,
 * routing, live and media services, the signaling channel and the speech
 * service, plus the built app and the demo's media.
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { SPEECH_KEY } from './accounts.ts';
import { DEFAULT_ASSETS_DIR, generateDemoAssets } from './assets.ts';
import { controlRoutes } from './control.ts';
import { createRouter, logRequest, type Route } from './http/router.ts';
import { accountRoutes } from './http/routes/account.ts';
import { liveRoutes } from './http/routes/live.ts';
import { srsRoutes } from './http/routes/srs.ts';
import { CONNECTION_LIMITS, limitConnections, timeoutOptions, type ConnectionLimits } from './http/clients.ts';
import { allowedHosts } from './http/hosts.ts';
import { crossSiteRefusal } from './http/origin.ts';
import { createStaticHandler } from './http/static.ts';
import { controlFromAfar, type TlsFiles } from './lan.ts';
import { createLogger } from './log.ts';
import type * as MediaModuleTypes from './media/index.ts';
import { questions } from './replies/knowledge.ts';
import { RoomRegistry, type CreateMedia } from './rooms.ts';
import { watchLiveFaults } from './signaling/liveFaults.ts';
import { createSignaling, SIGNALING_PATH, type SignalingOptions } from './signaling/server.ts';

export type StandinEnv = 'local' | 'test' | 'debug' | 'pre' | 'product';
export const STANDIN_ENVS: readonly StandinEnv[] = ['local', 'test', 'debug', 'pre', 'product'];

export interface SpeechService {
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

export interface StandinOptions {
  env: StandinEnv;
  /** The built app (Vite's dist/); null serves no app. Default 'dist'. */
  publicDir?: string | null;
  /** Where the demo's media are generated and served from. */
  assetsDir?: string;
  /** Default: server/media's createMediaPipeline. Tests inject a fake. */
  createMedia?: CreateMedia;
  /** Default: server/speech's service; null runs without speech. */
  speech?: SpeechService | null;
  /** Default: generate the demo's media with ffmpeg. */
  prepareAssets?: (dir: string, signal: AbortSignal) => Promise<void>;
  roomIdleMs?: number;
  maxRooms?: number;
  /** Rooms one client address may hold at once (3). */
  maxRoomsPerAddress?: number;
  /** Delay between a session going live and its faults firing (2 s by contract). */
  faultDelayMs?: number;
  /** How long start-live-slow holds /start_live (20 s by contract). */
  slowStartMs?: number;
  lateStartMs?: number;
  signaling?: Pick<SignalingOptions, 'pingIntervalMs' | 'play' | 'limits' | 'dialect'>;
  /** A further rule on who may use /__standin/* (docs/contract.md C11); false answers 403. */
  controlAllowed?: (req: http.IncomingMessage) => boolean;
  /** HTTPS with this key and certificate (`--lan`); plain HTTP without. */
  tls?: TlsFiles;
  /** `--lan`: the /__standin/* control endpoints answer only requests from a loopback address. */
  controlFromLoopbackOnly?: boolean;
  /** The media's ICE host candidates (server/lan.ts mediaHostAddresses); default loopback. */
  mediaHostAddresses?: readonly string[];
  /**
   * Origins of pages hosted elsewhere that may call the services (with CORS) and open the
   * signaling and speech sockets, as a real back end lists the sites that host its client
   * (e.g. the product build behind nginx). Every other origin gets 403 on every service
   * path and upgrade; the control endpoints never answer another origin.
   */
  allowedOrigins?: readonly string[];
  /** Host names served beyond localhost and IP addresses (STANDIN_ALLOWED_HOSTS; server/http/hosts.ts). */
  allowedHosts?: readonly string[];
  /** Overrides the HTTP connection caps and timeouts (server/http/clients.ts), for tests. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The TURN relay whose credentials `/get/route` hands out (server/turn.ts); none without. */
  relay?: RelayInfo;
}

export interface RelayInfo {
  /** coturn's static-auth-secret: the stand-in signs each page's time-limited credential with it. */
  secret: string;
  /** False while the relay is not running (coturn missing or failed): no credentials are handed out. */
  available(): boolean;
}

export interface Standin {
  server: http.Server;
  /** Resolves when /healthz would answer 200 for everything but the built app. */
  ready: Promise<void>;
  rooms: RoomRegistry;
  close(): Promise<void>;
}

const log = createLogger('http');

type MediaModule = typeof MediaModuleTypes;
type SpeechModule = { createSpeechService(o: { expectedKey: string; grammarQuestions?: string[] }): SpeechService };

/**
 * The media and speech modules are loaded when present, so the stand-in (and
 * its tests, with fakes) runs while they are still being written.
 */
async function optionalModule<T>(relative: string, what: string): Promise<T | null> {
  try {
    return (await import(new URL(relative, import.meta.url).href)) as T;
  } catch (err) {
    createLogger('app').error(`${what} unavailable: ${(err as Error).message}`);
    return null;
  }
}

function hostOf(server: http.Server): string {
  const address = server.address();
  if (!address || typeof address === 'string') return '127.0.0.1';
  return address.family === 'IPv6' ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
}

/** A slow or malformed client repeats its error for every connection: the first line, then one per 5 s. */
let lastClientError = -Infinity;
let heldClientErrors = 0;
function warnClientError(message: string, fields: Record<string, unknown>): void {
  const now = performance.now();
  if (now - lastClientError < 5_000) {
    heldClientErrors++;
    return;
  }
  log.warn(message, heldClientErrors > 0 ? { ...fields, alsoSinceLastLine: heldClientErrors } : fields);
  lastClientError = now;
  heldClientErrors = 0;
}

const hostRefusal =
  'this stand-in answers only to localhost, its IP addresses and the names in STANDIN_ALLOWED_HOSTS (a name that points here by surprise is DNS rebinding)';

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.on('error', () => {});
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

export async function createStandin(opts: StandinOptions): Promise<Standin> {
  const limits = { ...CONNECTION_LIMITS, ...opts.connectionLimits };
  const server: http.Server = opts.tls
    ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert, ...timeoutOptions(limits) })
    : http.createServer(timeoutOptions(limits));
  limitConnections(server, limits, log);
  const hosts = allowedHosts(opts.allowedHosts);
  const fallbackHost = () => hostOf(server);
  const shutdown = new AbortController();
  const assetsDir = opts.assetsDir ?? DEFAULT_ASSETS_DIR;
  const allowedOrigins = new Set(opts.allowedOrigins ?? []);

  const mediaModule = opts.createMedia ? null : await optionalModule<MediaModule>('./media/index.ts', 'the media pipeline (server/media)');
  const createMedia: CreateMedia =
    opts.createMedia ??
    (mediaModule
      ? (roomId) => mediaModule.createMediaPipeline({ roomId, ...(opts.mediaHostAddresses ? { hostAddresses: opts.mediaHostAddresses } : {}) })
      : () => {
          throw new Error('the media pipeline (server/media) is not available');
        });

  let speech: SpeechService | null = opts.speech ?? null;
  if (opts.speech === undefined) {
    const mod = await optionalModule<SpeechModule>('./speech/index.ts', 'the speech service (server/speech)');
    speech = mod ? mod.createSpeechService({ expectedKey: SPEECH_KEY, grammarQuestions: questions('en') }) : null;
  }

  const rooms = new RoomRegistry({
    createMedia,
    log: createLogger('rooms'),
    ...(opts.roomIdleMs !== undefined ? { idleMs: opts.roomIdleMs } : {}),
    ...(opts.maxRooms !== undefined ? { maxRooms: opts.maxRooms } : {}),
    ...(opts.maxRoomsPerAddress !== undefined ? { maxRoomsPerAddress: opts.maxRoomsPerAddress } : {}),
  });
  const faultLog = createLogger('faults');
  rooms.on('created', (room) => watchLiveFaults(room, { delayMs: opts.faultDelayMs ?? 2_000, log: faultLog }));

  const signaling = createSignaling({ rooms, log: createLogger('signaling'), fallbackHost, ...opts.signaling });
  const routes: Route[] = [
    ...accountRoutes(),
    ...liveRoutes({
      rooms,
      log,
      slowStartMs: opts.slowStartMs ?? 20_000,
      lateStartMs: opts.lateStartMs ?? 20_000,
      shutdown: shutdown.signal,
      ...(opts.relay ? { relay: { ...opts.relay, port: () => (server.address() as { port?: number } | null)?.port ?? 0 } } : {}),
    }),
    ...srsRoutes({ rooms, log }),
    ...(opts.env === 'local' || opts.env === 'test' ? controlRoutes({ signaling, rooms, log: createLogger('control'), ...(opts.controlAllowed ? { controlAllowed: opts.controlAllowed } : {}) }) : []),
  ];
  const route = createRouter(routes, { log, fallbackHost, allowedOrigins });
  const statics = createStaticHandler({ publicDir: opts.publicDir === undefined ? 'dist' : opts.publicDir, assetsDir });

  let assetsReady = false;
  let assetsError: string | null = null;
  const prepare =
    opts.prepareAssets ??
    ((dir: string, signal: AbortSignal) =>
      generateDemoAssets(dir, { log: createLogger('assets'), makePhoto: mediaModule?.generateAvatarPhoto ?? null, signal }));
  const ready = prepare(assetsDir, shutdown.signal).then(
    () => {
      assetsReady = true;
    },
    (err: unknown) => {
      assetsError = (err as Error).message;
      createLogger('assets').error('demo assets could not be made', { error: assetsError });
      throw err;
    },
  );
  // Callers that never await `ready` must not see an unhandled rejection.
  ready.catch(() => {});

  function health(res: http.ServerResponse): void {
    const waiting = [
      ...(assetsReady ? [] : [assetsError ? `assets failed: ${assetsError}` : 'assets']),
      ...(statics.appReady() ? [] : ['app build (dist/index.html)']),
    ];
    const body = waiting.length === 0 ? { ok: true } : { ok: false, waiting };
    res.writeHead(waiting.length === 0 ? 200 : 503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(body));
  }

  server.on('request', (req, res) => {
    // A request whose handling throws is answered 500 and costs nothing else (issue 53).
    try {
      onRequest(req, res);
    } catch (err) {
      log.error('request failed', { path: (req.url ?? '/').slice(0, 200), error: String(err) });
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: -1, msg: 'internal error' }));
    }
  });

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    logRequest(req, res, log);
    const path = (req.url ?? '/').split('?')[0];
    if (!hosts.allows(req.headers.host)) {
      log.warn('request refused: a Host this stand-in does not serve', { path, host: String(req.headers.host).slice(0, 100) });
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: -1, msg: hostRefusal }));
      return;
    }
    if (opts.controlFromLoopbackOnly && controlFromAfar(req.url, req.socket.remoteAddress)) {
      log.warn('control endpoint refused: not from a loopback address', { path, from: req.socket.remoteAddress });
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: -1, msg: 'the stand-in control endpoints answer only this machine' }));
      return;
    }
    const handled = path === '/healthz' ? Promise.resolve(health(res)).then(() => true) : route(req, res);
    handled
      .then((done) => {
        if (done || statics.handle(req, res)) return;
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: -1, msg: `not found: ${path}` }));
      })
      .catch((err: unknown) => {
        log.error('request failed', { path, error: String(err) });
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ code: -1, msg: 'internal error' }));
      });
  }

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      onUpgrade(req, socket, head);
    } catch (err) {
      log.error('WebSocket upgrade failed', { path: (req.url ?? '/').slice(0, 200), error: String(err) });
      refuseUpgrade(socket, 500, 'Internal Server Error');
    }
  });

  function onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '/').split('?')[0];
    if (!hosts.allows(req.headers.host)) {
      log.warn('WebSocket upgrade refused: a Host this stand-in does not serve', { path, host: String(req.headers.host).slice(0, 100) });
      return refuseUpgrade(socket, 403, 'Forbidden');
    }
    // Browsers let any page open a WebSocket anywhere and always send its Origin: another
    // site's page must not drive a visitor's session or the speech service (docs/contract.md C11).
    // The origins a deployment hosts the app on (STANDIN_ALLOWED_ORIGINS) are not foreign.
    // The same check as the service paths' and the controls' (server/http/origin.ts).
    const crossSite = crossSiteRefusal(req, allowedOrigins);
    if (crossSite !== null) {
      log.warn('WebSocket upgrade refused', { path, reason: crossSite });
      return refuseUpgrade(socket, 403, 'Forbidden');
    }
    if (path === SIGNALING_PATH) return signaling.handleUpgrade(req, socket, head);
    try {
      if (speech?.handleUpgrade(req, socket, head)) return;
    } catch (err) {
      createLogger('speech').error('speech upgrade failed', { error: String(err) });
      return refuseUpgrade(socket, 500, 'Internal Server Error');
    }
    log.warn('WebSocket upgrade refused: unknown path', { path });
    refuseUpgrade(socket, 404, 'Not Found');
  }
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Late headers or a late request (server/http/clients.ts) are a timeout, not a malformed request.
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    warnClientError(status === '408 Request Timeout' ? 'HTTP request refused: its headers or body came too late' : 'malformed HTTP request', { error: err.message, code: err.code });
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  });

  let closing: Promise<void> | null = null;
  return {
    server,
    ready,
    rooms,
    close() {
      closing ??= (async () => {
        shutdown.abort();
        await Promise.allSettled([signaling.close(), speech?.close(), rooms.closeAll()]);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
