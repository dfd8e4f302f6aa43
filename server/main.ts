/**
 * `npm start` / `npm run serve`: runs the stand-in on HOST:PORT.
 * Environment: HOST (127.0.0.1), PORT (8080; 0 picks a free port), STANDIN_ENV
 * (local), STANDIN_ROOM_IDLE_MS (60000), STANDIN_MAX_ROOMS (8), STANDIN_MAX_ROOMS_PER_ADDRESS (3),
 * STANDIN_ASSETS_DIR, STANDIN_PUBLIC_DIR (dist), STANDIN_TURN (1: run the TURN relay,
 * coturn, on UDP at the HTTP port's number; 0: none), STANDIN_DIALECT (standin; `seed`
 * words signaling frames as the specification's field list allows, without extensions),
 * STANDIN_ALLOWED_ORIGINS (comma-separated origins of an app hosted elsewhere, e.g. the
 * product build behind nginx, whose pages may call the services and open the sockets),
 * STANDIN_TURN_SECRET (the relay's
 * shared secret; default a new one per run: set it only for a relay run apart from the
 * stand-in, which /get/route then names), STANDIN_ALLOWED_HOSTS (host names served beyond
 * localhost and IP addresses, e.g. the machine's .local name; server/http/hosts.ts).
 * `--lan` (npm start -- --lan): HTTPS with a self-signed certificate kept outside the
 * repository, HOST 0.0.0.0 by default, the control endpoints for this machine only
 * (server/lan.ts).
 * stdout carries exactly two lines once ready (the demo URL and the listening
 * address); with --lan, the demo URL on each LAN address, a QR code of the first and
 * the listening address. Everything else is logged on stderr.
 */
import type { AddressInfo } from 'node:net';
import { createStandin, STANDIN_ENVS, type StandinEnv } from './app.ts';
import { DIALECTS, parseDialect } from './signaling/dialect.ts';
import { parseAllowedHosts } from './http/hosts.ts';
import { lanAddresses, lanBanner, lanCertificate, mediaHostAddresses } from './lan.ts';
import { createLogger } from './log.ts';
import { mediaReach } from './reach.ts';
import { newTurnSecret, relayPeers, startTurnRelay, type TurnRelay } from './turn.ts';

const log = createLogger('main');

function fail(message: string): never {
  log.error(message);
  process.exit(1);
}

function intFromEnv(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) fail(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

const lan = process.argv.slice(2).includes('--lan');
const host = process.env.HOST || (lan ? '0.0.0.0' : '127.0.0.1');
const port = intFromEnv('PORT', 0, 65535) ?? 8080;
const env = (process.env.STANDIN_ENV || 'local') as StandinEnv;
if (!STANDIN_ENVS.includes(env)) fail(`STANDIN_ENV must be one of ${STANDIN_ENVS.join(', ')}, got "${env}"`);

process.on('unhandledRejection', (reason) => log.error('unhandled rejection', { reason: String(reason) }));
// What a crashed stand-in left in the temp folder.

let allowedHosts: string[] = [];
try {
  allowedHosts = parseAllowedHosts(process.env.STANDIN_ALLOWED_HOSTS);
} catch (err) {
  fail(`STANDIN_ALLOWED_HOSTS: ${(err as Error).message}`);
}

/** The addresses a phone may use: every LAN address when bound to all interfaces, else HOST. */
const phoneAddresses = host === '0.0.0.0' || host === '::' ? lanAddresses() : [host];
let tls: { key: string; cert: string } | undefined;
if (lan) {
  // The names of STANDIN_ALLOWED_HOSTS (a leading dot allows names under it, which one certificate cannot list).
  const names = allowedHosts.filter((n) => !n.startsWith('.'));
  const made = await lanCertificate(phoneAddresses.filter((a) => a !== '127.0.0.1'), undefined, undefined, names);
  if (made.madeBecause) log.info(`made a self-signed certificate in ${made.dir} (${made.madeBecause}); a phone asks to accept it once`);
  else log.info(`using the self-signed certificate in ${made.dir}`);
  tls = { key: made.key, cert: made.cert };
}

const dialect = parseDialect(process.env.STANDIN_DIALECT);
if (!dialect) fail(`STANDIN_DIALECT must be one of ${DIALECTS.join(', ')}, got "${process.env.STANDIN_DIALECT}"`);
if (dialect !== 'standin') log.info(`signaling dialect: ${dialect}`);

const allowedOrigins = (process.env.STANDIN_ALLOWED_ORIGINS ?? '')
  .split(',')
  .map((o) => o.trim())
  .filter(Boolean)
  .map((o) => {
    try {
      const origin = new URL(o).origin;
      if (origin !== 'null' && origin === o.replace(/\/$/, '')) return origin;
    } catch {
      /* reported below */
    }
    return fail(`STANDIN_ALLOWED_ORIGINS: "${o}" is not an origin (scheme://host[:port])`);
  });

const roomIdleMs = intFromEnv('STANDIN_ROOM_IDLE_MS', 1_000, 3_600_000);
const maxRooms = intFromEnv('STANDIN_MAX_ROOMS', 1, 64);
const maxRoomsPerAddress = intFromEnv('STANDIN_MAX_ROOMS_PER_ADDRESS', 1, 64);
const wantRelay = (env === 'local' || env === 'test') && process.env.STANDIN_TURN !== '0';
const turnSecret = process.env.STANDIN_TURN_SECRET || newTurnSecret();
// A relay run apart from the stand-in (a test's, behind its delay line) shares the secret.
let relayUp = !wantRelay && Boolean(process.env.STANDIN_TURN_SECRET);
const mediaAddresses = mediaHostAddresses(host);
const standin = await createStandin({
  env,
  ...(process.env.STANDIN_PUBLIC_DIR ? { publicDir: process.env.STANDIN_PUBLIC_DIR } : {}),
  ...(process.env.STANDIN_ASSETS_DIR ? { assetsDir: process.env.STANDIN_ASSETS_DIR } : {}),
  ...(roomIdleMs !== undefined ? { roomIdleMs } : {}),
  ...(maxRooms !== undefined ? { maxRooms } : {}),
  ...(maxRoomsPerAddress !== undefined ? { maxRoomsPerAddress } : {}),
  ...(tls ? { tls, controlFromLoopbackOnly: true } : {}),
  mediaHostAddresses: mediaAddresses,
  signaling: { dialect },
  allowedOrigins,
  allowedHosts,
  relay: { secret: turnSecret, available: () => relayUp },
});

let turn: TurnRelay | null = null;
let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) {
    log.warn(`${signal} again: exiting now`);
    process.exit(1);
  }
  stopping = true;
  log.info(`${signal}: closing rooms and connections`);
  const force = setTimeout(() => fail('close took longer than 5 s; exiting'), 5_000);
  force.unref();
  await Promise.allSettled([standin.close(), turn?.close()]);
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

standin.server.on('error', (err: NodeJS.ErrnoException) => {
  void standin.close();
  fail(err.code === 'EADDRINUSE' ? `port ${port} on ${host} is in use: set PORT to another port` : `server error: ${err.message}`);
});
await new Promise<void>((resolve) => standin.server.listen(port, host, resolve));

try {
  await standin.ready;
} catch (err) {
  await standin.close();
  fail(`the stand-in could not get ready: ${(err as Error).message}`);
}

const actualPort = (standin.server.address() as AddressInfo).port;
// The relay /get/route names (turn:{page host}:{port}): ready before the URL is printed.
if (wantRelay) {
  // One rule for the relay and the media's STUN (server/reach.ts).
  const reach = mediaReach(mediaAddresses);
  turn = await startTurnRelay({ host, port: actualPort, log: createLogger('turn'), secret: turnSecret, peers: relayPeers(reach, mediaAddresses), deniedSubnets: reach.denied });
  relayUp = turn !== null;
}
const shownHost = host.includes(':') ? `[${host}]` : host;
const origin = `${lan ? 'https' : 'http'}://${shownHost}:${actualPort}`;
const demo = lan ? await lanBanner(phoneAddresses, actualPort) : `Demo: ${origin}/25d/demo\n`;
process.stdout.write(`${demo}listening on ${origin}\n`);
