/**
 * The media server (spec section 7), imitating SRS 5: GET /api/v1/streams in
 * SRS's own shape, and WHEP playback (POST an SDP offer, 201 with the answer;
 * DELETE the Location to hang up).
 */
import { randomBytes } from 'node:crypto';
import { hasFault } from '../../faults.ts';
import type { Logger } from '../../log.ts';
import type { Room, RoomRegistry } from '../../rooms.ts';
import type { HttpReply, Route } from '../router.ts';

export interface SrsDeps {
  rooms: RoomRegistry;
  log: Logger;
}

const SERVER_ID = `vid-${randomBytes(4).toString('hex')}`;
const SERVICE_ID = randomBytes(4).toString('hex');
const VHOST_ID = `vid-${randomBytes(4).toString('hex')}`;
const WHEP_PATH = '/rtc/v1/whep/';

/** publish.active: media really flowing, unless the stream-never-active fault holds it down. */
export function streamActive(room: Room): boolean {
  return room.mediaReady && room.media.isActive() && !hasFault('stream-never-active');
}

/** One stream as SRS 5 dumps it (SrsStatisticStream::dumps); video/audio are null until publishing. */
export function srsStream(room: Room, host: string): Record<string, unknown> {
  const active = streamActive(room);
  let stats = { sendBytes: 0, frames: 0, kbps: 0, width: 0, height: 0 };
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
    video: active ? { codec: 'VP8', profile: 'Other', level: 'Other', width: stats.width, height: stats.height } : null,
    audio: active ? { codec: 'Opus', sample_rate: 48000, channel: 2, profile: 'Other' } : null,
  };
}

const text = (status: number, body: string): HttpReply => ({ status, text: body });

/** werift's offer errors are the media module's WhepOfferError; matched by name to stay decoupled. */
function isOfferError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'WhepOfferError' || err.constructor.name === 'WhepOfferError');
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
      path: '/api/v1/streams',
      record: true,
      cors: true,
      handle({ url, origin }) {
        const count = Math.min(1000, Math.max(1, Number.parseInt(url.searchParams.get('count') ?? '10', 10) || 10));
        const host = new URL(origin.http).host;
        const streams = rooms
          .list()
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
      async handle({ url, body, signal }) {
        const room = whepRoom(url, rooms);
        if (!('media' in room)) return room;
        if (room.mediaDown && hasFault('media-down')) return text(503, 'media server unavailable (fault media-down)');
        let answer: { answerSdp: string; peerId: string };
        try {
          answer = await room.media.answerWhep(body as string);
        } catch (err) {
          if (isOfferError(err)) return text(400, `bad SDP offer: ${(err as Error).message}`);
          log.error('WHEP answer failed', { roomId: room.id, error: String(err) });
          return text(503, `could not answer the offer: ${(err as Error).message}`);
        }
        if (signal.aborted) {
          // The client is gone: its peer would otherwise wait for ICE that never comes.
          room.media.closePeer(answer.peerId);
          return null;
        }
        const location = `${WHEP_PATH}?app=live&stream=${encodeURIComponent(room.id)}&session=${encodeURIComponent(answer.peerId)}`;
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
        const room = whepRoom(url, rooms);
        if (!('media' in room)) return room;
        const session = url.searchParams.get('session');
        if (!session) return text(400, 'session required');
        room.media.closePeer(session);
        return text(200, 'closed');
      },
    },
  ];
}
