/**
 * Rooms: one per /start_live, each owning a media pipeline (the avatar's
 * WebRTC stream) and the signaling clients bound to it by offer_2.
 *
 * A room nobody stops is reclaimed, so that a tab that crashed or a phone that died without
 * End chat cannot hold one of the avatars (server/README.md, *Limits*):
 * - `idleMs` (60 s) without a connected WebRTC peer. Signaling sockets alone do not keep a
 *   room: they cost nothing to hold open (they answer pings by themselves), and a few of
 *   them used to keep rooms, and with them the 8-room cap, taken for ever. A visitor's
 *   session always has its peer; between a drop and the reconnect the client's own limits
 *   (21 s) end well within `idleMs`.
 * - `orphanMs` (10 s) after its last signaling socket closed: the visitor's page is gone (a
 *   killed tab's socket closes at once). The client reconnects a dropped socket within 2 s,
 *   and ends its session itself when it cannot (specification: the signaling channel lost
 *   ends it).
 * - `silentMs` (30 s) in which the visitor gave no sign of life on any channel: no STUN
 *   binding request on a peer (a browser sends one every few seconds: ICE consent, RFC 7675;
 *   SRS destroys an RTC session after 30 s without one, its `stun_timeout`), no frame and no
 *   pong on a socket. That is a phone that died or left the network without a word.
 *
 * Starts are capped, in all (`maxRooms`, 8: each room runs two encoders) and per client address
 * (`maxRoomsPerAddress`, 3), so that one device on a shared network, starting rooms in a loop,
 * holds its share and no more, and a visitor from another address still gets an avatar
 * (server/README.md, *What the stand-in promises a shared network*).
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
  /** The client address /start_live came from: the first of the owner's. */
  address?: string;
}

/** The addresses a room remembers for its owner: a phone that changes network a few times. */
const OWNER_ADDRESSES_KEPT = 8;

/** Emits 'change' (clients or peers changed), 'live' (became live), 'greeted', 'closed'. */
export class Room extends EventEmitter {
  readonly id: string;
  readonly uid: string;
  readonly deviceId: string;
  readonly appId: string;
  /** The client address of its /start_live: the rooms an address holds are capped (RoomRegistry). */
  readonly startedFrom: string | undefined;
  readonly createdAt = Date.now();
  readonly clients = new Set<RoomClient>();
  /**
   * The client addresses the owner has been seen at: /start_live's, and each signaling
   * socket's that proved the room's device_id. WHEP and the streams list carry no device id
   * (the specification's calls), so they are the owner's when they come from one of these.
   */
  private readonly ownerAddresses: string[] = [];
  /** performance.now() of the visitor's last sign of life (a STUN request, a frame, a pong). */
  lastHeard = performance.now();
  /**
   * performance.now() since when the room's last signaling client has gone (null while one is
   * bound, and before the first: a room nobody joined is left to the idle rule).
   */
  orphanSince: number | null = null;
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
    this.startedFrom = init.address;
    if (init.address) this.ownerAddresses.push(init.address);
    media.on('peer-connected', () => this.update());
    media.on('peer-closed', () => this.update());
    // A viewer's STUN binding request (ICE consent): the visitor is there.
    media.on('heard', () => this.touch());
  }

  /** The visitor was heard from (a frame or pong on a bound socket, a STUN request on a peer). */
  touch(): void {
    this.lastHeard = performance.now();
  }

  /**
   * Whether `deviceId` is the one that started the room; if so, `address` becomes one of the
   * owner's (the newest few are kept).
   */
  proveOwner(deviceId: string | null, address: string): boolean {
    if (deviceId === null || deviceId !== this.deviceId) return false;
    const at = this.ownerAddresses.indexOf(address);
    if (at >= 0) this.ownerAddresses.splice(at, 1);
    this.ownerAddresses.push(address);
    if (this.ownerAddresses.length > OWNER_ADDRESSES_KEPT) this.ownerAddresses.shift();
    return true;
  }

  /** Whether a request from `address` is the owner's (see ownerAddresses). */
  ownedFrom(address: string): boolean {
    return this.ownerAddresses.includes(address);
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  attach(client: RoomClient): void {
    if (this.closed) return;
    this.clients.add(client);
    this.orphanSince = null;
    this.touch();
    this.update();
  }

  detach(client: RoomClient): void {
    if (!this.clients.delete(client)) return;
    if (this.clients.size === 0) this.orphanSince = performance.now();
    this.update();
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
  /** Reclaim a room after this long without a signaling socket (default 10 s). */
  orphanMs?: number;
  /** Reclaim a room whose visitor gave no sign of life for this long (default 30 s). */
  silentMs?: number;
  /** Each room runs two encoders; refuse more than this many at once. */
  maxRooms?: number;
  /** Refuse a start from a client address that already started this many rooms still open. */
  maxRoomsPerAddress?: number;
}

/** Why the registry refuses a start: every avatar is busy, or this address holds its share. */
export type RoomRefusal = { reason: 'full' } | { reason: 'address'; held: number; limit: number };

/** How often the orphan and silence rules are looked at: their limits are met within this. */
const SWEEP_MS = 1_000;

/** Emits 'created' (room) so the app can attach fault watchers. */
export class RoomRegistry extends EventEmitter {
  private readonly rooms = new Map<string, Room>();
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  private readonly idleMs: number;
  private readonly orphanMs: number;
  private readonly silentMs: number;
  private readonly maxRooms: number;
  private readonly maxPerAddress: number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly opts: RoomRegistryOptions) {
    super();
    this.idleMs = opts.idleMs ?? 60_000;
    this.orphanMs = opts.orphanMs ?? 10_000;
    this.silentMs = opts.silentMs ?? 30_000;
    this.maxRooms = opts.maxRooms ?? 8;
    this.maxPerAddress = opts.maxRoomsPerAddress ?? 3;
  }

  get size(): number {
    return this.rooms.size;
  }

  /** Rooms still open that were started from `address` (by /start_live). */
  heldBy(address: string): number {
    let held = 0;
    for (const room of this.rooms.values()) if (room.startedFrom === address) held++;
    return held;
  }

  /**
   * Why a start from `address` would be refused now, or null. The address's share is checked
   * first: a device at its share is told so even when the others have taken the rest.
   */
  refusal(address: string | undefined): RoomRefusal | null {
    if (address !== undefined) {
      const held = this.heldBy(address);
      if (held >= this.maxPerAddress) return { reason: 'address', held, limit: this.maxPerAddress };
    }
    return this.rooms.size >= this.maxRooms ? { reason: 'full' } : null;
  }

  /** Starts a room and its media; null when refused (see `refusal`). */
  create(init: RoomInit): Room | null {
    if (this.refusal(init.address)) return null;
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
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
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
    if (this.rooms.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
    this.opts.log.info('room stopped', { roomId: id, reason });
    await room.close(reason);
    return true;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.list().map((room) => this.stop(room.id, 'stand-in closing')));
  }

  /** The orphan and silence rules, looked at once a second. */
  private sweep(): void {
    const now = performance.now();
    for (const room of this.list()) {
      if (room.orphanSince !== null && now - room.orphanSince >= this.orphanMs) {
        void this.stop(room.id, `no signaling socket for ${this.orphanMs} ms: the visitor's page is gone`);
      } else if (now - room.lastHeard >= this.silentMs) {
        void this.stop(room.id, `no sign of life from the visitor for ${this.silentMs} ms (no STUN, frame or pong)`);
      }
    }
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
