/**
 * The faults that strike a live session (docs/contract.md C12): `delayMs` (2 s) after a
 * room is live for the visitor too (a bound signaling socket, a connected WebRTC peer, and
 * the client's say_hello, which it sends once the avatar plays) every such fault that is
 * set fires once for that room. Counting from the greeting, not from the connected peer,
 * keeps a fault from striking a client that is still connecting on a slow machine.
 */
import { hasFault, type FaultName } from '../faults.ts';
import type { Logger } from '../log.ts';
import type { Room } from '../rooms.ts';
import { CLOSE_DROPPED } from './session.ts';

export const QUIT_TEXT = 'The session was ended by the server.';

/** Fires `name` for this room if it is set and has not fired here yet. */
function take(room: Room, name: FaultName): boolean {
  if (!hasFault(name) || room.firedFaults.has(name)) return false;
  room.firedFaults.add(name);
  return true;
}

export function applyLiveFaults(room: Room, log: Logger): void {
  if (room.closed) return;
  const fired: FaultName[] = [];
  if (take(room, 'signaling-quit')) {
    fired.push('signaling-quit');
    for (const client of room.clients) client.sendQuit(QUIT_TEXT);
  }
  const signaling = take(room, 'signaling-down') ? 'signaling-down' : take(room, 'signaling-drop') ? 'signaling-drop' : null;
  if (signaling) {
    fired.push(signaling);
    room.signalingDown = signaling === 'signaling-down';
    for (const client of [...room.clients]) client.close(CLOSE_DROPPED, `dropped by the stand-in (fault ${signaling})`);
  }
  const media = take(room, 'media-down') ? 'media-down' : take(room, 'media-drop') ? 'media-drop' : take(room, 'media-silent') ? 'media-silent' : null;
  if (media) {
    fired.push(media);
    room.mediaDown = media === 'media-down';
    if (media === 'media-silent') room.media.silencePeers();
    else room.media.dropPeers();
  }
  if (fired.length > 0) log.warn('fault applied to a live session', { roomId: room.id, faults: fired });
}

/** Arms the live-session faults for a room; the timers die with the room. */
export function watchLiveFaults(room: Room, opts: { delayMs: number; log: Logger }): void {
  let timer: NodeJS.Timeout | null = null;
  const arm = () => {
    if (timer || !room.greeted || !room.isLive()) return;
    timer = setTimeout(() => {
      timer = null;
      applyLiveFaults(room, opts.log);
    }, opts.delayMs);
    timer.unref();
  };
  room.on('live', arm);
  room.on('greeted', arm);
  room.on('closed', () => {
    if (timer) clearTimeout(timer);
    timer = null;
  });
}

/** The faults `strikeLiveRooms` can repeat on demand (the soak benchmark's periodic drops). */
export const STRIKE_FAULTS = ['signaling-drop', 'media-drop', 'media-silent'] as const;
export type StrikeFault = (typeof STRIKE_FAULTS)[number];

/**
 * Drops, now, the signaling sockets and/or the media peers of every live room, as the
 * `signaling-drop`, `media-drop` and `media-silent` faults do once per room, but as often as asked and
 * without setting a fault. Returns the rooms struck.
 */
export function strikeLiveRooms(rooms: Iterable<Room>, faults: readonly StrikeFault[], log: Logger): string[] {
  const struck: string[] = [];
  for (const room of rooms) {
    if (room.closed || !room.isLive()) continue;
    if (faults.includes('signaling-drop')) {
      for (const client of [...room.clients]) client.close(CLOSE_DROPPED, 'dropped by the stand-in (strike signaling-drop)');
    }
    if (faults.includes('media-drop')) room.media.dropPeers();
    else if (faults.includes('media-silent')) room.media.silencePeers();
    struck.push(room.id);
  }
  if (struck.length > 0) log.warn('struck live sessions', { rooms: struck, faults });
  return struck;
}
