import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeMedia } from './http/testkit.ts';
import { createLogger } from './log.ts';
import { RoomRegistry, type RoomClient } from './rooms.ts';

const log = createLogger('test');
const init = { uid: 'demo', deviceId: 'H5x', appId: 'standin-demo' };

function registry(opts: { idleMs?: number; maxRooms?: number; maxRoomsPerAddress?: number } = {}) {
  const medias: FakeMedia[] = [];
  const rooms = new RoomRegistry({
    log,
    createMedia: () => {
      const media = new FakeMedia();
      medias.push(media);
      return media;
    },
    ...opts,
  });
  return { rooms, medias };
}

function client(): RoomClient & { closes: [number, string][]; quits: string[] } {
  const c = { closes: [] as [number, string][], quits: [] as string[], close: (code: number, reason: string) => void c.closes.push([code, reason]), sendQuit: (text: string) => void c.quits.push(text) };
  return c;
}

afterEach(() => vi.useRealTimers());

describe('RoomRegistry', () => {
  it('starts rooms with unique ids and their own media', () => {
    const { rooms, medias } = registry();
    const a = rooms.create(init)!;
    const b = rooms.create(init)!;
    expect(a.id).not.toBe(b.id);
    expect(medias).toHaveLength(2);
    expect(rooms.get(a.id)).toBe(a);
    expect(rooms.list()).toEqual([a, b]);
  });

  it('marks the media ready only once it really is', async () => {
    const { rooms, medias } = registry();
    const room = rooms.create(init)!;
    await Promise.resolve();
    expect(room.mediaReady).toBe(false);
    medias[0]!.markReady();
    await medias[0]!.ready;
    await Promise.resolve();
    expect(room.mediaReady).toBe(true);
  });

  it('logs a room stopped during start-up as a normal end, not as an error', async () => {
    const lines: Record<'info' | 'warn' | 'error', string[]> = { info: [], warn: [], error: [] };
    const spy = { info: (m: string) => void lines.info.push(m), warn: (m: string) => void lines.warn.push(m), error: (m: string) => void lines.error.push(m) };
    let failStart!: (err: Error) => void;
    const rooms = new RoomRegistry({
      log: spy,
      createMedia: () => {
        const media = new FakeMedia();
        // As the real pipeline does: closed before its first packets, `ready` rejects.
        Object.defineProperty(media, 'ready', { value: new Promise<void>((_, reject) => (failStart = reject)) });
        return media;
      },
    });
    const room = rooms.create(init)!;
    await rooms.stop(room.id, 'stop_live');
    failStart(new Error('media pipeline closed before it was ready'));
    await new Promise((r) => setImmediate(r));
    expect(lines.error).toEqual([]);
    expect(lines.info).toContain('room stopped before its media was ready');
  });

  it('refuses more rooms than maxRooms', () => {
    const { rooms } = registry({ maxRooms: 1 });
    expect(rooms.create(init)).not.toBeNull();
    expect(rooms.create(init)).toBeNull();
  });

  it('refuses a start from an address that holds its share (3 by default), and still starts one from another address, until all 8 are taken', async () => {
    const { rooms } = registry();
    const flood = { ...init, address: '192.168.1.66' };
    const held = [rooms.create(flood), rooms.create(flood), rooms.create(flood)];
    expect(held.every((room) => room !== null)).toBe(true);
    expect(rooms.create(flood)).toBeNull();
    expect(rooms.refusal('192.168.1.66')).toEqual({ reason: 'address', held: 3, limit: 3 });
    expect(rooms.heldBy('192.168.1.66')).toBe(3);
    // Another device gets an avatar; the rest go to others until the total cap.
    for (let i = 0; i < 5; i++) expect(rooms.create({ ...init, address: `192.168.1.${10 + i}` })).not.toBeNull();
    expect(rooms.refusal('192.168.1.99')).toEqual({ reason: 'full' });
    // A room the flooding address stopped (or that was reclaimed) is its to start again, no more.
    await rooms.stop(held[0]!.id, 'stop_live');
    await rooms.stop(rooms.list().at(-1)!.id, 'stop_live');
    expect(rooms.create(flood)).not.toBeNull();
    expect(rooms.create(flood)).toBeNull();
  });

  it('stops a room: closes its clients and media, and forgets it', async () => {
    const { rooms, medias } = registry();
    const room = rooms.create(init)!;
    const c = client();
    room.attach(c);
    expect(await rooms.stop(room.id, 'stop_live')).toBe(true);
    expect(c.closes).toEqual([[1000, 'stop_live']]);
    expect(medias[0]!.closed).toBe(true);
    expect(rooms.get(room.id)).toBeUndefined();
    expect(await rooms.stop(room.id, 'again')).toBe(false);
  });

  it('closes every room on closeAll', async () => {
    const { rooms, medias } = registry();
    rooms.create(init);
    rooms.create(init);
    await rooms.closeAll();
    expect(rooms.size).toBe(0);
    expect(medias.every((m) => m.closed)).toBe(true);
  });

  it('emits live when a bound client and a connected peer meet, once per transition', () => {
    const { rooms, medias } = registry();
    const room = rooms.create(init)!;
    const lives = vi.fn();
    room.on('live', lives);
    room.attach(client());
    expect(lives).not.toHaveBeenCalled();
    medias[0]!.connectPeer('p1');
    medias[0]!.connectPeer('p2');
    expect(lives).toHaveBeenCalledTimes(1);
    medias[0]!.dropPeers();
    expect(room.isLive()).toBe(false);
    medias[0]!.connectPeer('p3');
    expect(lives).toHaveBeenCalledTimes(2);
  });

  it('reclaims a room left without peers for idleMs', async () => {
    vi.useFakeTimers();
    const { rooms, medias } = registry({ idleMs: 1_000 });
    const room = rooms.create(init)!;
    await vi.advanceTimersByTimeAsync(999);
    expect(rooms.get(room.id)).toBe(room);
    await vi.advanceTimersByTimeAsync(1);
    expect(rooms.get(room.id)).toBeUndefined();
    expect(medias[0]!.closed).toBe(true);
  });

  it('reclaims a room with signaling clients but no peer, closing them', async () => {
    vi.useFakeTimers();
    const { rooms } = registry({ idleMs: 1_000 });
    const room = rooms.create(init)!;
    const clients = Array.from({ length: 8 }, () => client());
    for (const c of clients) room.attach(c);
    await vi.advanceTimersByTimeAsync(999);
    expect(rooms.get(room.id)).toBe(room);
    await vi.advanceTimersByTimeAsync(1);
    expect(rooms.get(room.id)).toBeUndefined();
    expect(clients.map((c) => c.closes[0]?.[0])).toEqual(Array(8).fill(1000));
  });

  it('keeps a room while a peer watches, and reclaims it idleMs after the last one leaves', async () => {
    vi.useFakeTimers();
    const { rooms, medias } = registry({ idleMs: 1_000 });
    const room = rooms.create(init)!;
    medias[0]!.connectPeer('p');
    await vi.advanceTimersByTimeAsync(1_500);
    expect(rooms.get(room.id)).toBe(room);
    medias[0]!.closePeer('p');
    await vi.advanceTimersByTimeAsync(999);
    expect(rooms.get(room.id)).toBe(room);
    await vi.advanceTimersByTimeAsync(1);
    expect(rooms.get(room.id)).toBeUndefined();
  });

  describe('a visitor who vanished without End chat', () => {
    /** performance.now() too: the rules measure time with it. */
    const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] });

    it('reclaims a room 10 s after its last signaling socket closed (a killed tab), even with a peer still counted connected', async () => {
      fakeClock();
      const { rooms, medias } = registry();
      const room = rooms.create(init)!;
      const c = client();
      room.attach(c);
      medias[0]!.connectPeer('p');
      await vi.advanceTimersByTimeAsync(20_000);
      expect(rooms.get(room.id), 'a live session stays').toBe(room);
      room.detach(c);
      await vi.advanceTimersByTimeAsync(8_000);
      // A reconnect within the grace keeps it.
      const again = client();
      room.attach(again);
      await vi.advanceTimersByTimeAsync(20_000);
      expect(rooms.get(room.id)).toBe(room);
      room.detach(again);
      await vi.advanceTimersByTimeAsync(9_000);
      expect(rooms.get(room.id)).toBe(room);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(rooms.get(room.id)).toBeUndefined();
      expect(medias[0]!.closed).toBe(true);
    });

    it('leaves a room nobody joined yet to the idle rule (start_live answered, the page still connecting)', async () => {
      fakeClock();
      const { rooms } = registry({ idleMs: 60_000 });
      const room = rooms.create(init)!;
      await vi.advanceTimersByTimeAsync(15_000);
      expect(rooms.get(room.id)).toBe(room);
    });

    it('reclaims a room whose visitor went silent on every channel for 30 s (a phone that died), and keeps one that is heard from', async () => {
      fakeClock();
      const { rooms, medias } = registry();
      const heard = rooms.create(init)!;
      const silent = rooms.create(init)!;
      for (const [i, room] of [heard, silent].entries()) {
        room.attach(client());
        medias[i]!.connectPeer('p');
      }
      // The heard room's viewer sends STUN every few seconds; the other's socket and peer say nothing.
      for (let s = 0; s < 29; s++) {
        medias[0]!.emit('heard');
        await vi.advanceTimersByTimeAsync(1_000);
      }
      expect(rooms.get(silent.id)).toBe(silent);
      for (let s = 0; s < 3; s++) {
        medias[0]!.emit('heard');
        await vi.advanceTimersByTimeAsync(1_000);
      }
      expect(rooms.get(silent.id)).toBeUndefined();
      expect(medias[1]!.closed).toBe(true);
      expect(rooms.get(heard.id)).toBe(heard);
      // A frame or a pong on the socket is a sign of life too.
      for (let s = 0; s < 40; s++) {
        if (s % 10 === 0) heard.touch();
        await vi.advanceTimersByTimeAsync(1_000);
      }
      expect(rooms.get(heard.id)).toBe(heard);
    });
  });

  describe('who owns a room', () => {
    it('is the device that started it: its device_id proves it, and the addresses it proved it from are the owner’s', () => {
      const { rooms } = registry();
      const room = rooms.create({ ...init, address: '10.0.0.5' })!;
      expect(room.ownedFrom('10.0.0.5')).toBe(true);
      expect(room.ownedFrom('10.0.0.9')).toBe(false);
      expect(room.proveOwner('H5other', '10.0.0.9')).toBe(false);
      expect(room.proveOwner(null, '10.0.0.9')).toBe(false);
      expect(room.ownedFrom('10.0.0.9')).toBe(false);
      // The phone on another network (its signaling reconnected from there).
      expect(room.proveOwner('H5x', '10.0.0.9')).toBe(true);
      expect(room.ownedFrom('10.0.0.9')).toBe(true);
      for (let i = 0; i < 20; i++) room.proveOwner('H5x', `10.1.0.${i}`);
      expect(room.ownedFrom('10.1.0.19')).toBe(true);
      expect(room.ownedFrom('10.0.0.5'), 'only the newest few addresses are kept').toBe(false);
    });
  });
});
