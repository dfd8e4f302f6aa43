/**
 * Rooms: one per /start_live, each owning a media pipeline (the avatar's
 * WebRTC stream) and the signaling clients bound to it by offer_2.
 *
 * A room nobody stops is reclaimed once it has had no connected WebRTC peer for
 * `idleMs`, so an abandoned tab cannot leave ffmpeg running. Signaling sockets
 * alone do not keep it: they cost nothing to hold open (they answer pings by
 * themselves), and a few of them used to keep rooms, and with them the 8-room
 * cap, taken for ever. A visitor's session always has its peer; between a drop
 * and the reconnect the client's own limits (21 s) end well within `idleMs`.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { Logger } from './log.ts';
import type { MediaPipeline } from './media/index.ts';

export type { MediaPipeline, SpeechHandle } from './media/index.ts';
export type CreateMedia = (roomId: string) => MediaPipeline;

/** What a room needs from a bound signaling connection (implemented by the signaling session). */
export interface RoomClient {
  close(code: number, reason: string): void;
  sendQuit(text: string): void;
}

export interface RoomInit {
  uid: string;
  deviceId: string;
  appId: string;
}

/** Emits 'change' (clients or peers changed), 'live' (became live), 'greeted', 'closed'. */
export class Room extends EventEmitter {
  readonly id: string;
  readonly uid: string;
  readonly deviceId: string;
  readonly appId: string;
  readonly createdAt = Date.now();
  readonly clients = new Set<RoomClient>();
  /** `media.ready` resolved: RTP is flowing, so the streams list shows its video and audio codecs (publish.active comes earlier, from media.isActive()). */
  mediaReady = false;
  /** Set by the signaling-down / media-down faults: reconnects are refused for this room. */
  signalingDown = false;
  mediaDown = false;
  /** Faults already applied to this room (each fires once per room). */
  readonly firedFaults = new Set<string>();
  /** The client asked for the greeting (say_hello), which it does once the avatar plays. */
  greeted = false;
  private wasLive = false;
  private closing: Promise<void> | null = null;

  constructor(
    id: string,
    init: RoomInit,
    readonly media: MediaPipeline,
  ) {
    super();
    this.id = id;
    this.uid = init.uid;
    this.deviceId = init.deviceId;
    this.appId = init.appId;
    media.on('peer-connected', () => this.update());
    media.on('peer-closed', () => this.update());
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  attach(client: RoomClient): void {
    if (this.closed) return;
    this.clients.add(client);
    this.update();
  }

  detach(client: RoomClient): void {
    if (this.clients.delete(client)) this.update();
  }

  /** A client greeted: it sees and hears the avatar (PROTOCOL.md, say_hello). */
  greet(): void {
    if (this.closed || this.greeted) return;
    this.greeted = true;
    this.emit('greeted');
  }

  /** Live: a bound signaling client and a connected WebRTC peer. */
  isLive(): boolean {
    return !this.closed && this.clients.size > 0 && this.media.peerCount() > 0;
  }

  /** Nobody watches: no connected WebRTC peer (bound signaling clients do not count). */
  isIdle(): boolean {
    return this.media.peerCount() === 0;
  }

  private update(): void {
    if (this.closed) return;
    this.emit('change');
    const live = this.isLive();
    if (live && !this.wasLive) this.emit('live');
    this.wasLive = live;
  }

  /** Closes every client and the media pipeline; idempotent. */
  close(reason: string): Promise<void> {
    if (this.closing) return this.closing;
    const clients = [...this.clients];
    this.clients.clear();
    this.closing = (async () => {
      for (const client of clients) client.close(1000, reason);
      this.emit('closed');
      await this.media.close();
    })();
    return this.closing;
  }
}

export interface RoomRegistryOptions {
  createMedia: CreateMedia;
  log: Logger;
  /** Reclaim a room after this long without a connected WebRTC peer (default 60 s). */
  idleMs?: number;
  /** Each room runs two encoders; refuse more than this many at once. */
  maxRooms?: number;
}

/** Emits 'created' (room) so the app can attach fault watchers. */
export class RoomRegistry extends EventEmitter {
  private readonly rooms = new Map<string, Room>();
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  private readonly idleMs: number;
  private readonly maxRooms: number;

  constructor(private readonly opts: RoomRegistryOptions) {
    super();
    this.idleMs = opts.idleMs ?? 60_000;
    this.maxRooms = opts.maxRooms ?? 8;
  }

  get size(): number {
    return this.rooms.size;
  }

  /** Starts a room and its media; null when the stand-in is at capacity. */
  create(init: RoomInit): Room | null {
    if (this.rooms.size >= this.maxRooms) return null;
    const id = `room_${randomBytes(6).toString('hex')}`;
    const room = new Room(id, init, this.opts.createMedia(id));
    this.rooms.set(id, room);
    room.media.ready.then(
      () => {
        if (room.closed) return;
        room.mediaReady = true;
        this.opts.log.info('media ready', { roomId: id });
      },
      (err: unknown) => {
        // Stopped (stop_live, a reclaim) before its media was up: the normal end of a short session.
        if (room.closed) this.opts.log.info('room stopped before its media was ready', { roomId: id });
        else this.opts.log.error('media failed to start', { roomId: id, error: String(err) });
      },
    );
    room.on('change', () => this.watchIdle(room));
    this.watchIdle(room);
    this.opts.log.info('room started', { roomId: id, uid: init.uid });
    this.emit('created', room);
    return room;
  }

  get(id: string): Room | undefined {
    return this.rooms.get(id);
  }

  list(): Room[] {
    return [...this.rooms.values()];
  }

  /** Stops and forgets a room; false when it does not exist. */
  async stop(id: string, reason: string): Promise<boolean> {
    const room = this.rooms.get(id);
    if (!room) return false;
    this.rooms.delete(id);
    this.clearIdle(id);
    this.opts.log.info('room stopped', { roomId: id, reason });
    await room.close(reason);
    return true;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.list().map((room) => this.stop(room.id, 'stand-in closing')));
  }

  private watchIdle(room: Room): void {
    if (!room.isIdle()) {
      this.clearIdle(room.id);
      return;
    }
    if (this.idleTimers.has(room.id)) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(room.id);
      if (room.isIdle()) void this.stop(room.id, `idle for ${this.idleMs} ms`);
    }, this.idleMs);
    timer.unref();
    this.idleTimers.set(room.id, timer);
  }

  private clearIdle(id: string): void {
    const timer = this.idleTimers.get(id);
    if (timer) clearTimeout(timer);
    this.idleTimers.delete(id);
  }
}
