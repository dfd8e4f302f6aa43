/**
 * The media server (docs/requirements.md R79 and R80), imitating SRS 5 from its source: GET /api/v1/streams/ in
 * SRS's own shape (the path without the slash answers 302 to it, as SRS's HTTP mux does), and
 * WHEP playback (POST an SDP offer, 201 with the answer and a Location; DELETE the Location to
 * hang up, which frees the session at once).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { recordEvent } from '../../events.ts';
import { hasFault } from '../../faults.ts';
import type { Logger } from '../../log.ts';
import { isLoopbackAddress } from '../../lan.ts';
import type { Room, RoomRegistry } from '../../rooms.ts';
import { clientAddress } from '../clients.ts';
import type { HttpReply, Route, RouteContext } from '../router.ts';

export interface SrsDeps {
  rooms: RoomRegistry;
  log: Logger;
}

const SERVER_ID = `vid-${randomBytes(4).toString('hex')}`;
const SERVICE_ID = randomBytes(4).toString('hex');
const VHOST_ID = `vid-${randomBytes(4).toString('hex')}`;
const WHEP_PATH = '/rtc/v1/whep/';
const STREAMS_PATH = '/api/v1/streams/';
/** Signs the session of a Location, as SRS's token does: only who got the answer can end it. */
const TOKEN_KEY = randomBytes(16);

function sessionToken(session: string): string {
  return createHmac('sha256', TOKEN_KEY).update(session).digest('hex').slice(0, 16);
}

function tokenMatches(session: string, token: string): boolean {
  const expected = Buffer.from(sessionToken(session));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * publish.active: as in SRS, true as soon as publishing has started, before the first media
 * (so WHEP may connect before the first keyframe), unless the stream-never-active fault holds
 * it down.
 */
export function streamActive(room: Room): boolean {
  return room.media.isActive() && !hasFault('stream-never-active');
}

/** SRS dumps video/audio once it has seen their codec, that is after the first media. */
function codecs(room: Room, stats: { width: number; height: number; codec: 'h264' | 'vp8' }): Pick<Record<string, unknown>, 'video' | 'audio'> {
  if (!room.mediaReady) return { video: null, audio: null };
  const video =
    stats.codec === 'h264'
      ? { codec: 'H264', profile: 'Baseline', level: '3.1', width: stats.width, height: stats.height }
      : { codec: 'VP8', profile: 'Other', level: 'Other', width: stats.width, height: stats.height };
  return { video, audio: { codec: 'Opus', sample_rate: 48000, channel: 2, profile: 'Other' } };
}

/** One stream as SRS 5 dumps it (SrsStatisticStream::dumps); video/audio are null until publishing. */
export function srsStream(room: Room, host: string): Record<string, unknown> {
  const active = streamActive(room);
  let stats = { sendBytes: 0, frames: 0, kbps: 0, width: 0, height: 0, codec: 'h264' as 'h264' | 'vp8' };
  try {
    stats = room.media.stats();
  } catch {
    // A pipeline that is closing has no stats; zeros are what SRS shows too.
  }
  const short = room.id.replace(/^room_/, '');
  const peers = room.media.peerCount();
  return {
    id: `vid-${short}`,
    name: room.id,
    vhost: VHOST_ID,
    app: 'live',
    tcUrl: `webrtc://${host}/live`,
    url: `/live/${room.id}`,
    live_ms: Date.now(),
    clients: peers + (active ? 1 : 0),
    frames: stats.frames,
    send_bytes: stats.sendBytes,
    recv_bytes: 0,
    kbps: { recv_30s: 0, send_30s: Math.round(stats.kbps) },
    publish: active ? { active: true, cid: `cid-${short}` } : { active: false },
    ...(active ? codecs(room, stats) : { video: null, audio: null }),
  };
}

const text = (status: number, body: string): HttpReply => ({ status, text: body });

/** The media module's errors, matched by name to stay decoupled from it. */
function errorNamed(err: unknown, ...names: string[]): boolean {
  return err instanceof Error && names.includes(err.name);
}

/** What SRS does with an offer it refuses: it closes the connection and sends no HTTP answer. */
function closeWithoutAnswer(req: RouteContext['req']): null {
  req.socket.destroy();
  return null;
}

function whepRoom(url: URL, rooms: RoomRegistry): Room | HttpReply {
  const app = url.searchParams.get('app');
  const stream = url.searchParams.get('stream');
  if (app !== 'live') return text(404, `unknown app: ${app ?? '(none)'}; use app=live`);
  if (!stream) return text(400, 'stream required: ?app=live&stream={room_id}');
  return rooms.get(stream) ?? text(404, `stream not found: ${stream}`);
}

export function srsRoutes(deps: SrsDeps): Route[] {
  const { rooms, log } = deps;
  return [
    {
      method: 'GET',
      path: STREAMS_PATH,
      record: true,
      cors: true,
      handle({ req, url, origin }) {
        // SRS registers the slashed pattern; its mux answers the bare path with a redirect.
        if (!url.pathname.endsWith('/')) {
          const location = STREAMS_PATH + url.search;
          return { status: 302, text: `Redirect to ${location}`, headers: { Location: location } };
        }
        const count = Math.min(1000, Math.max(1, Number.parseInt(url.searchParams.get('count') ?? '10', 10) || 10));
        const host = new URL(origin.http).host;
        // A device sees its own streams: a room id is no one else's business (SRS lists every
        // stream; it has no notion of an owner). Tools on the machine see the rooms started
        // from its address, as the tests' and the benchmarks' own are.
        const from = clientAddress(req);
        const streams = rooms
          .list()
          .filter((room) => room.ownedFrom(from))
          .slice(0, count)
          .map((room) => srsStream(room, host));
        return { status: 200, json: { code: 0, server: SERVER_ID, service: SERVICE_ID, pid: String(process.pid), streams } };
      },
    },
    {
      method: 'POST',
      path: WHEP_PATH,
      body: 'sdp',
      record: true,
      cors: true,
      textErrors: true,
      async handle({ req, url, body, signal }) {
        if (hasFault('whep-refuse')) return closeWithoutAnswer(req);
        const room = whepRoom(url, rooms);
        if (!('media' in room)) return room;
        // The offer carries no device id (the specification's call): it is the owner's when it
        // comes from an address the owner proved its device_id from (start_live, offer_2).
        const from = clientAddress(req);
        if (!room.ownedFrom(from)) {
          log.warn('WHEP offer refused: not from the device that started the room', { roomId: room.id, from });
          return text(403, `stream ${room.id} belongs to another device: play it from the device that started it (its start_live and signaling)`);
        }
        if (room.mediaDown && hasFault('media-down')) return text(503, 'media server unavailable (fault media-down)');
        let answer: { answerSdp: string; peerId: string };
        try {
          answer = await room.media.answerWhep(body as string, { silent: hasFault('whep-no-media'), fromLoopback: isLoopbackAddress(from) });
        } catch (err) {
          if (errorNamed(err, 'WhepCodecError')) {
            log.warn('WHEP offer refused, closing the connection as SRS does', { roomId: room.id, reason: (err as Error).message });
            return closeWithoutAnswer(req);
          }
          if (errorNamed(err, 'WhepBusyError')) return text(503, (err as Error).message);
          if (errorNamed(err, 'WhepGoneError')) return text(404, `stream not found: ${(err as Error).message}`);
          if (errorNamed(err, 'WhepOfferError')) return text(400, `bad SDP offer: ${(err as Error).message}`);
          log.error('WHEP answer failed', { roomId: room.id, error: String(err) });
          return text(503, `could not answer the offer: ${(err as Error).message}`);
        }
        if (signal.aborted) {
          // The client is gone: its peer would otherwise wait for ICE that never comes.
          room.media.closePeer(answer.peerId);
          return null;
        }
        const session = encodeURIComponent(answer.peerId);
        const location = `${WHEP_PATH}?action=delete&token=${sessionToken(answer.peerId)}&app=live&stream=${encodeURIComponent(room.id)}&session=${session}`;
        return { status: 201, text: answer.answerSdp, contentType: 'application/sdp', headers: { Location: location } };
      },
    },
    {
      method: 'DELETE',
      path: WHEP_PATH,
      record: true,
      cors: true,
      textErrors: true,
      handle({ url }) {
        const session = url.searchParams.get('session');
        const token = url.searchParams.get('token');
        // Recorded before anything can refuse it: a hang-up that comes after stop_live closed
        // the room is still the client doing its part.
        recordEvent('whep', 'in', { roomId: url.searchParams.get('stream'), peerId: session, method: 'DELETE' });
        if (!session || !token) return text(400, 'session and token required: DELETE the Location of the 201 answer');
        if (!tokenMatches(session, token)) return text(403, `token does not match session ${session}`);
        // As SRS 5 does, a session already gone (its room stopped first, or a second DELETE)
        // is 200: the token proves the client was given it, and a hang-up racing stop_live is
        // the client doing its part. The stream only finds the peer; app is not checked, as in SRS.
        const room = rooms.get(url.searchParams.get('stream') ?? '');
        return room?.media.closePeer(session) ? text(200, 'closed') : text(200, `already closed: ${session}`);
      },
    },
  ];
}
