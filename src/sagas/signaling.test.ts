import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catalogue } from '../features/notices/messages.ts';
import { networkChangeSuspected, startRequested, videoCanPlay, videoPlaying } from '../features/session/sessionSlice.ts';
import { sendRequested } from '../features/signaling/signalingActions.ts';
import type { ClientRequest } from '../features/signaling/protocol.ts';
import {
  SIGNALING_RECONNECTS,
  HEARTBEAT_MS,
  HEARTBEAT_TIMEOUT_MS,
  PROBE_TIMEOUT_MS,
  RESUME_WINDOW_MS,
  SIGNALING_OPEN_TIMEOUT_MS,
} from './signaling.ts';
import { setupSagas, type Harness } from './testing/harness.ts';
import { goLive } from './testing/live.ts';

let h: Harness;

beforeEach(async () => {
  vi.useFakeTimers();
  h = setupSagas();
  await h.flush();
});

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

const typed: ClientRequest = { type: 'message_text', source: 'nlpmsg', text: 'hello', data: { msg_id: 'u-1', lang: 'en' } };

describe('signaling', () => {
  it('reconnects 3 times 500 ms apart, then shows "error" and ends the session', async () => {
    await goLive(h);
    h.plan.sockets.splice(0, 1, 'refuse');
    h.sockets[0]?.serverClose();
    await h.flush();
    expect(h.session().signaling).toBe('reconnecting');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await h.advance(499);
      expect(h.socket.connect).toHaveBeenCalledTimes(attempt);
      await h.advance(1);
      expect(h.socket.connect).toHaveBeenCalledTimes(attempt + 1);
    }
    await h.advance(500);
    expect(h.socket.connect).toHaveBeenCalledTimes(4);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.signalingLost.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'signalingLost', signaling: 'closed' });
    expect(h.live.stopLive).toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejoins the room with offer_2 after a reconnect and greets only once', async () => {
    await goLive(h);
    h.sockets[0]?.serverClose();
    await h.advance(500);
    expect(h.sockets).toHaveLength(2);
    expect(h.sockets[1]?.types()).toEqual(['offer_2']);
    expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
    expect(h.ofType('session/roomJoined')).toHaveLength(1);
  });

  it('greets on the reconnected channel when the video starts playing while it reconnects', async () => {
    h.dispatch(startRequested());
    await h.flush();
    expect(h.session().phase).toBe('video');
    h.sockets[0]?.serverClose(1012);
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session().status).toBe('live');
    expect(h.sockets[0]?.types()).toEqual(['offer_2']);
    await h.advance(500);
    expect(h.sockets[1]?.types()).toEqual(['offer_2', 'say_hello']);
  });

  it('ends the session when the server refuses to rejoin the room after a reconnect (it is gone)', async () => {
    await goLive(h);
    h.plan.sockets.splice(0, 1, 'gone');
    h.sockets[0]?.serverClose(1012);
    await h.advance(500);
    // Refused: no reconnect; the socket is left with close_webrtc.
    expect(h.sockets[1]?.types()).toEqual(['offer_2', 'close_webrtc']);
    expect(h.socket.connect).toHaveBeenCalledTimes(2);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.sessionQuit.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'quit' });
  });

  it('ends the session at once with "session ended" when the server closes normally (its room was stopped)', async () => {
    await goLive(h);
    h.sockets[0]?.serverClose(1000);
    await h.flush();
    expect(h.socket.connect).toHaveBeenCalledTimes(1);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.sessionQuit.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'quit' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not retry a room that refuses reconnects (close 4003)', async () => {
    await goLive(h);
    h.sockets[0]?.serverClose(1012);
    await h.advance(500);
    h.sockets[1]?.serverClose(4003);
    await h.advance(2000);
    expect(h.socket.connect).toHaveBeenCalledTimes(2);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.signalingLost.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'signalingLost' });
  });

  it('aborts the stream poll with "signaling disconnected" when the channel is lost while polling', async () => {
    h.streams.isStreamActive.mockResolvedValue(false);
    h.plan.sockets.splice(0, 1, 'refuse');
    h.dispatch(startRequested());
    await h.advance(1500);
    expect(h.socket.connect).toHaveBeenCalledTimes(4);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.signalingDisconnected.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'signalingLost' });
    const polls = h.streams.isStreamActive.mock.calls.length;
    await h.advance(2000);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(polls);
    expect(h.signals.streams?.every((s) => s.aborted)).toBe(true);
  });

  it('counts a socket that never opens as a failed attempt', async () => {
    h.plan.sockets.splice(0, 1, 'silent');
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(5000);
    expect(h.sockets[0]?.closed).toBe(true);
    expect(h.session().signaling).toBe('reconnecting');
  });

  it('only warns, and hands the request back, when asked to send while the channel is closed', async () => {
    h.dispatch(sendRequested(typed));
    await h.flush();
    expect(h.ofType('signaling/sendFailed').map((a) => a.payload)).toEqual([{ request: typed, reason: 'closed' }]);
    expect(h.state().notices.alert).toBeNull();
  });

  it('holds what is sent while the channel reconnects, and sends it in order once the new socket has joined (R117)', async () => {
    await goLive(h);
    h.sockets[0]?.serverClose(1012);
    await h.flush();
    expect(h.session().signaling).toBe('reconnecting');
    h.dispatch(sendRequested({ type: 'break' }));
    h.dispatch(sendRequested(typed));
    await h.flush();
    expect(h.ofType('signaling/sendFailed')).toEqual([]);
    await h.advance(500);
    expect(h.session().signaling).toBe('open');
    expect(h.sockets[1]?.types()).toEqual(['offer_2', 'break', 'message_text']);
    expect(h.ofType('signaling/sendFailed')).toEqual([]);
  });

  it('what was held through a reconnect that fails is handed back as not sent', async () => {
    await goLive(h);
    h.plan.sockets.splice(0, 1, 'refuse', 'refuse', 'refuse');
    h.sockets[0]?.serverClose();
    await h.flush();
    h.dispatch(sendRequested(typed));
    await h.flush();
    expect(h.ofType('signaling/sendFailed')).toEqual([]);
    await h.advance(2000);
    expect(h.ofType('signaling/sendFailed').map((a) => a.payload)).toEqual([{ request: typed, reason: 'closed' }]);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.signalingLost.id });
  });

  it('sends requested frames with room_id, app_id and deviceId while open', async () => {
    await goLive(h);
    h.dispatch(sendRequested(typed));
    h.dispatch(sendRequested({ type: 'break' }));
    await h.flush();
    expect(h.sockets[0]?.sent.slice(2)).toEqual([
      { ...typed, room_id: 'room-1', app_id: 'demo', deviceId: 'H5123e4567e89b12d3a456426614174000' },
      { type: 'break', room_id: 'room-1', app_id: 'demo', deviceId: 'H5123e4567e89b12d3a456426614174000' },
    ]);
    expect(h.ofType('signaling/sendFailed')).toEqual([]);
  });

  it('shows the server quit text, then ends the session', async () => {
    await goLive(h);
    h.sockets[0]?.serverSend({ msg_type: 'quit', text: 'The avatar has left' });
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ text: 'The avatar has left' });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'quit' });
    expect(h.live.stopLive).toHaveBeenCalled();
    expect(h.sockets[0]?.closed).toBe(true);
  });

  it('shows the quit prompt when the quit message has no text', async () => {
    await goLive(h);
    h.sockets[0]?.serverSend({ msg_type: 'quit' });
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.sessionQuit.id });
    expect(h.session().endReason).toBe('quit');
  });

  it('publishes valid frames as messageReceived and drops invalid ones', async () => {
    await goLive(h);
    const socket = h.sockets[0];
    socket?.serverSend('not json');
    socket?.serverSend({ msg_type: 'tts', msg_id: 'r-1', image_url: 'javascript:alert(1)' });
    socket?.serverSend({ msg_type: 'surprise' });
    socket?.serverSend({ msg_type: 'tts', msg_id: 'r-1', text: 'Hi', image_url: 'data:x' });
    await h.flush();
    const received = h.ofType('signaling/messageReceived').map((a) => a.payload);
    expect(received).toEqual([
      { msg_type: 'command', command: 'asr_ready' },
      { msg_type: 'tts', msg_id: 'r-1', text: 'Hi' },
    ]);
    expect(h.session().status).toBe('live');
  });

  describe('a socket on a path that died (a new network)', () => {
    const resumed = () => h.ofType('session/signalingResumed').length;

    it('with a server that answers pings, the browser saying its network changed is checked with a ping too: a live socket is kept (leaving it would cut the reply under way), a dead one left quietly for a new one that rejoins', async () => {
      await goLive(h);
      const old = h.sockets[0]!;
      h.networkChanged('online');
      await h.advance(PROBE_TIMEOUT_MS * 3);
      expect(h.sockets).toHaveLength(1);
      expect(old.pings).toBe(2);
      old.answerPing = false;
      h.networkChanged('connection');
      await h.advance(PROBE_TIMEOUT_MS + 2);
      // No close_webrtc on the old socket: the room is still ours; and no 500 ms wait.
      expect(old.closed).toBe(true);
      expect(old.types()).toEqual(['offer_2', 'say_hello']);
      expect(h.sockets).toHaveLength(2);
      expect(h.sockets[1]?.types()).toEqual(['offer_2']);
      expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
      expect(resumed()).toBe(1);
      expect(h.ofType('session/roomJoined')).toHaveLength(1);
      expect(h.state().notices.alert).toBeNull();
    });

    it('with a server that has no heartbeat, the browser saying its network changed leaves the socket at once', async () => {
      h.plan.pongs = false;
      await goLive(h);
      const old = h.sockets[0]!;
      h.networkChanged('online');
      await h.flush();
      expect(old.closed).toBe(true);
      expect(old.types()).not.toContain('close_webrtc');
      expect(h.sockets).toHaveLength(2);
      expect(resumed()).toBe(1);
    });

    it('the session asks for a heartbeat once: a server that never answered is not pinged again on its next sockets', async () => {
      h.plan.pongs = false;
      await goLive(h);
      expect(h.sockets[0]?.pings).toBe(1);
      h.sockets[0]?.serverClose(1012);
      await h.advance(500);
      expect(h.sockets).toHaveLength(2);
      expect(h.session().signaling).toBe('open');
      await h.advance(3 * HEARTBEAT_MS);
      expect(h.sockets[1]?.pings).toBe(0);
    });

    it('with a server that answers pings: the media going quiet is checked with a ping, and a socket that gives no answer within PROBE_TIMEOUT_MS is left for a new one at once', async () => {
      await goLive(h);
      const old = h.sockets[0]!;
      // The join asked whether the server has a heartbeat, and it answered.
      expect(old.pings).toBe(1);
      old.answerPing = false;
      h.dispatch(networkChangeSuspected('media'));
      await h.flush();
      expect(old.pings).toBe(2);
      await h.advance(PROBE_TIMEOUT_MS - 1);
      expect(h.sockets).toHaveLength(1);
      // The deadline, and one turn for a frame queued behind its timer.
      await h.advance(2);
      expect(old.types()).not.toContain('close_webrtc');
      expect(h.sockets).toHaveLength(2);
      expect(h.sockets[1]?.types()).toEqual(['offer_2']);
      expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
      expect(resumed()).toBe(1);
    });

    it('with a server that answers pings: a socket that answers the check is kept', async () => {
      await goLive(h);
      h.dispatch(networkChangeSuspected('media'));
      await h.advance(5 * PROBE_TIMEOUT_MS);
      expect(h.sockets).toHaveLength(1);
      expect(h.sockets[0]?.pings).toBe(2);
      expect(resumed()).toBe(0);
    });

    it('with a server that answers pings: a ping every HEARTBEAT_MS finds a socket that stopped answering with no sign from the browser', async () => {
      await goLive(h);
      const old = h.sockets[0]!;
      await h.advance(HEARTBEAT_MS);
      expect(old.pings).toBe(2);
      old.answerPing = false;
      await h.advance(HEARTBEAT_MS);
      expect(old.pings).toBe(3);
      await h.advance(HEARTBEAT_TIMEOUT_MS - 1);
      expect(h.sockets).toHaveLength(1);
      // The deadline, and one turn for a frame queued behind its timer.
      await h.advance(2);
      expect(h.sockets).toHaveLength(2);
      expect(resumed()).toBe(1);
    });

    it('with a server that has no heartbeat: the media going quiet leaves the socket alone, an idle socket is never left, and the browser saying its network changed still resumes', async () => {
      // Sockets ignore pings, as a back end without the extension does.
      h.plan.pongs = false;
      await goLive(h);
      const old = h.sockets[0]!;
      expect(old.pings).toBe(1);
      await h.advance(3 * HEARTBEAT_MS);
      expect(old.pings).toBe(1);
      h.dispatch(networkChangeSuspected('media'));
      await h.advance(5 * PROBE_TIMEOUT_MS);
      expect(h.sockets).toHaveLength(1);
      h.networkChanged('online');
      await h.flush();
      expect(old.types()).not.toContain('close_webrtc');
      expect(h.sockets).toHaveLength(2);
      expect(h.sockets[1]?.types()).toEqual(['offer_2']);
      expect(resumed()).toBe(1);
      expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
    });

    it('sockets that cannot open while the network is still down (a black hole) do not use up the reconnects for RESUME_WINDOW_MS; after it, they do', async () => {
      await goLive(h);
      h.sockets[0]!.answerPing = false;
      h.plan.sockets.splice(0, h.plan.sockets.length, 'silent');
      h.dispatch(networkChangeSuspected('media'));
      await h.advance(PROBE_TIMEOUT_MS + 2);
      expect(h.session().signaling).toBe('resuming');
      // 5 s per socket that never opens, 500 ms apart: four of them fit in the window, all uncounted.
      await h.advance(RESUME_WINDOW_MS);
      expect(h.session().status).toBe('live');
      const tried = h.sockets.length;
      expect(tried).toBeGreaterThanOrEqual(5);
      // Then the three reconnects of the specification, and the session ends with its message.
      await h.advance(4 * (SIGNALING_OPEN_TIMEOUT_MS + 500));
      expect(h.state().notices.alert?.message).toEqual({ id: catalogue.signalingLost.id });
      expect(h.session()).toMatchObject({ status: 'idle', endReason: 'signalingLost' });
      expect(h.networkListeners()).toBe(0);
    });

    it('sockets refused at once while the network is still down (no route) are not counted either', async () => {
      await goLive(h);
      h.sockets[0]!.answerPing = false;
      h.plan.sockets.splice(0, h.plan.sockets.length, 'refuse');
      h.dispatch(networkChangeSuspected('media'));
      await h.advance(PROBE_TIMEOUT_MS + 2);
      await h.advance(RESUME_WINDOW_MS - PROBE_TIMEOUT_MS - 1000);
      expect(h.sockets.length).toBeGreaterThan(SIGNALING_RECONNECTS + 1);
      expect(h.session()).toMatchObject({ status: 'live', signaling: 'resuming' });
      expect(h.state().notices.alert).toBeNull();
      await h.advance(1000 + 8 * 500);
      expect(h.session()).toMatchObject({ status: 'idle', endReason: 'signalingLost' });
    });

    it('a network that comes back within the window resumes the session', async () => {
      await goLive(h);
      h.sockets[0]!.answerPing = false;
      h.plan.sockets.splice(0, h.plan.sockets.length, 'silent', 'silent', 'join');
      h.dispatch(networkChangeSuspected('media'));
      await h.advance(PROBE_TIMEOUT_MS + 2 + 2 * (SIGNALING_OPEN_TIMEOUT_MS + 500));
      expect(h.sockets).toHaveLength(4);
      expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
      expect(resumed()).toBe(1);
    });

    it('the browser saying it has a network again while a new socket is still connecting over the old one starts another at once, uncounted', async () => {
      await goLive(h);
      h.sockets[0]!.answerPing = false;
      h.plan.sockets.splice(0, h.plan.sockets.length, 'silent', 'join');
      h.dispatch(networkChangeSuspected('media'));
      await h.advance(PROBE_TIMEOUT_MS + 2);
      expect(h.sockets).toHaveLength(2);
      await h.advance(1000);
      h.networkChanged('online');
      await h.flush();
      expect(h.sockets).toHaveLength(3);
      expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
      expect(resumed()).toBe(1);
    });
  });
});
