import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { clearFaults, setFaults } from '../faults.ts';
import { FAKE_OFFER, FakeMedia, isCommand, SignalingClient, startRoom, startTestStandin, type TestStandin } from '../http/testkit.ts';
import { createLogger } from '../log.ts';
import { Room } from '../rooms.ts';
import { QUIT_TEXT, watchLiveFaults } from './liveFaults.ts';

let t: TestStandin;
let clients: SignalingClient[] = [];
beforeAll(async () => {
  t = await startTestStandin({ faultDelayMs: 100 });
});
afterAll(() => t.close());
afterEach(async () => {
  clearFaults();
  for (const c of clients) c.close();
  clients = [];
  await t.standin.rooms.closeAll();
});

/**
 * What did not happen is looked at after the faults' own delay (faultDelayMs, 100 ms) has passed
 * twice over: a window of the rule, not of this machine. What happens is waited for (expect.poll).
 * The delay itself, to the millisecond, is watchLiveFaults's test below, on fake timers.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const whep = (roomId: string) => fetch(`${t.base}/rtc/v1/whep/?app=live&stream=${roomId}`, { method: 'POST', body: FAKE_OFFER });

async function connect(roomId: string): Promise<SignalingClient> {
  const c = await SignalingClient.connect(t.wsUrl);
  clients.push(c);
  c.send({ type: 'offer_2', room_id: roomId, deviceId: 'H5test' });
  await c.next(isCommand('asr_ready'));
  return c;
}

/** A live session: a bound signaling socket, a connected WebRTC peer, and the client's greeting. */
async function live(): Promise<{ roomId: string; c: SignalingClient }> {
  const roomId = await startRoom(t.base);
  const c = await connect(roomId);
  expect((await whep(roomId)).status).toBe(201);
  c.send({ type: 'say_hello', room_id: roomId, data: { lang: 'en' } });
  await expect.poll(() => t.standin.rooms.get(roomId)!.isLive()).toBe(true);
  return { roomId, c };
}

describe('faults of a live session', () => {
  it('do nothing until the session is live', async () => {
    setFaults(['signaling-drop', 'media-drop']);
    const roomId = await startRoom(t.base);
    const c = await connect(roomId);
    await sleep(250);
    expect(c.closed).toBeNull();
    expect(t.medias.get(roomId)!.dropCount).toBe(0);
  });

  it('do nothing to a client that is still connecting: connected but not greeted yet', async () => {
    setFaults(['signaling-drop', 'media-drop']);
    const roomId = await startRoom(t.base);
    const c = await connect(roomId);
    expect((await whep(roomId)).status).toBe(201);
    await sleep(250);
    expect(c.closed).toBeNull();
    expect(t.medias.get(roomId)!.dropCount).toBe(0);
    // The avatar plays for the visitor: the greeting is asked for, and the faults follow.
    c.send({ type: 'say_hello', room_id: roomId, data: { lang: 'en' } });
    expect((await c.waitClose()).code).toBe(1012);
  });

  it('signaling-drop closes the socket once, 2 s (here 100 ms) after live, and accepts the reconnect', async () => {
    setFaults(['signaling-drop']);
    const started = Date.now();
    const { roomId, c } = await live();
    const closed = await c.waitClose();
    expect(closed.code).toBe(1012);
    expect(closed.reason).toMatch(/signaling-drop/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    const again = await connect(roomId);
    await sleep(250);
    expect(again.closed).toBeNull();
  });

  it('signaling-down closes the socket and refuses every reconnect', async () => {
    setFaults(['signaling-down']);
    const { roomId, c } = await live();
    expect((await c.waitClose()).code).toBe(1012);
    await expect(SignalingClient.connect(t.wsUrl)).rejects.toThrow(/503/);
    expect(t.standin.rooms.get(roomId)!.signalingDown).toBe(true);
  });

  it('signaling-down refuses an offer_2 for the downed room once the upgrade gets through', async () => {
    setFaults(['signaling-down']);
    const { roomId, c } = await live();
    await c.waitClose();
    // Another room's session may still connect while this one is down: make the upgrade pass.
    const room = t.standin.rooms.get(roomId)!;
    room.signalingDown = false;
    const late = await SignalingClient.connect(t.wsUrl);
    clients.push(late);
    room.signalingDown = true;
    late.send({ type: 'offer_2', room_id: roomId, deviceId: 'H5test' });
    expect((await late.waitClose()).code).toBe(4003);
  });

  it('signaling-quit sends a quit message', async () => {
    setFaults(['signaling-quit']);
    const { c } = await live();
    expect(await c.next((f) => f.msg_type === 'quit', 2_000)).toEqual({ msg_type: 'quit', text: QUIT_TEXT });
  });

  it('media-drop closes the peer once and accepts a new WHEP', async () => {
    setFaults(['media-drop']);
    const { roomId } = await live();
    const media = t.medias.get(roomId)!;
    await expect.poll(() => media.dropCount).toBe(1);
    expect(media.peerCount()).toBe(0);
    expect((await whep(roomId)).status).toBe(201);
    await sleep(250);
    expect(media.dropCount).toBe(1);
    expect(media.peerCount()).toBe(1);
  });

  it('media-silent drops the peer the way SRS\'s kick does (silently, not closed) once, and accepts a new WHEP', async () => {
    setFaults(['media-silent']);
    const { roomId, c } = await live();
    const media = t.medias.get(roomId)!;
    await expect.poll(() => media.silenceCount).toBe(1);
    expect(media.dropCount).toBe(0);
    expect(media.peerCount()).toBe(0);
    expect(c.closed).toBeNull();
    expect((await whep(roomId)).status).toBe(201);
    await sleep(250);
    expect(media.silenceCount).toBe(1);
    expect(media.peerCount()).toBe(1);
  });

  it('media-down closes the peer and fails every later WHEP with 503', async () => {
    setFaults(['media-down']);
    const { roomId } = await live();
    await expect.poll(() => t.medias.get(roomId)!.dropCount).toBe(1);
    expect((await whep(roomId)).status).toBe(503);
    expect((await whep(roomId)).status).toBe(503);
  });

  it('stay off for a room that is stopped before they fire', async () => {
    setFaults(['signaling-quit']);
    const { roomId, c } = await live();
    await t.standin.rooms.stop(roomId, 'test');
    await sleep(200);
    expect(c.frames.some((f) => f.msg_type === 'quit')).toBe(false);
  });
});

describe('watchLiveFaults', () => {
  it('fires 2 s after the room goes live and the client greeted, not before, and never again for the same fault', async () => {
    vi.useFakeTimers();
    try {
      setFaults(['signaling-quit']);
      const media = new FakeMedia();
      const room = new Room('room_timer', { uid: 'demo', deviceId: 'd', appId: 'a' }, media);
      watchLiveFaults(room, { delayMs: 2_000, log: createLogger('test') });
      const quits: string[] = [];
      const client = { close: () => {}, sendQuit: (text: string) => void quits.push(text) };
      room.attach(client);
      media.connectPeer('p1');
      await vi.advanceTimersByTimeAsync(5_000);
      expect(quits).toEqual([]);
      room.greet();
      await vi.advanceTimersByTimeAsync(1_999);
      expect(quits).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(quits).toEqual([QUIT_TEXT]);
      media.dropPeers();
      media.connectPeer('p2');
      await vi.advanceTimersByTimeAsync(5_000);
      expect(quits).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
