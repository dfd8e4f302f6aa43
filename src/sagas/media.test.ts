import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catalogue } from '../features/notices/messages.ts';
import { avatarMovedAgain, networkChangeSuspected, selectReconnecting, signalingResumed, signalingStateChanged, START_TIMEOUT_MS, startRequested, videoCanPlay, videoPlaying } from '../features/session/sessionSlice.ts';
import { MEDIA_CONNECT_TIMEOUT_MS, MEDIA_DOUBT_MS, MEDIA_POLL_MS, MEDIA_RECONNECT_DELAY_MS, MEDIA_RECONNECTS, MEDIA_SILENCE_MS, RESUME_WAIT_MS } from './media.ts';
import { SIGNALING_OPEN_TIMEOUT_MS, SIGNALING_RECONNECT_DELAY_MS } from './signaling.ts';
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

describe('media', () => {
  it('reports the connection states of the avatar media', async () => {
    await goLive(h);
    expect(h.ofType('session/mediaStateChanged').map((a) => a.payload)).toEqual(['connected']);
    expect(h.services.livePeer.get()).toBe(h.peers[0]);
  });

  it('reconnects a dropped connection with a new WHEP request and stays live', async () => {
    await goLive(h);
    h.peers[0]?.emitState('disconnected');
    await h.flush();
    // A disconnected connection may still come back: it is let go when the first attempt goes.
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    await h.advance(1999);
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    await h.advance(1);
    expect(h.peers[0]?.close).toHaveBeenCalled();
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.services.remoteMedia.get()).toBe(h.peers[1]?.stream);
    expect(h.session()).toMatchObject({ status: 'live', media: 'connected', reconnects: { media: 1, signaling: 0 } });
  });

  it('a failed connection is let go at once, and the new WHEP request goes 2 s later', async () => {
    await goLive(h);
    h.peers[0]?.emitState('failed');
    await h.flush();
    expect(h.peers[0]?.close).toHaveBeenCalled();
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    await h.advance(1999);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    await h.advance(1);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.services.remoteMedia.get()).toBe(h.peers[1]?.stream);
    expect(h.session()).toMatchObject({ status: 'live', media: 'connected', reconnects: { media: 1, signaling: 0 } });
  });

  it("uses the ICE servers of the session's route for the first connection and for every reconnect", async () => {
    const relay = [{ urls: ['turn:10.0.0.5:8080?transport=udp'], username: '1700000000:ab12', credential: 'c2lnbmVk' }];
    h.live.getRoute.mockResolvedValueOnce({ websockLink: 'ws://127.0.0.1/ws/signaling', srsLink: 'http://127.0.0.1', iceServers: relay });
    await goLive(h);
    expect(h.whep.prepare).toHaveBeenCalledWith(expect.any(AbortSignal), relay);
    h.peers[0]?.emitState('disconnected');
    await h.flush();
    await h.advance(MEDIA_RECONNECT_DELAY_MS);
    expect(h.whep.connect.mock.calls.map(([target]) => target.iceServers)).toEqual([relay, relay]);
    // The reconnect's offer, made ahead during its wait, too: with the build's servers it gathered
    // no relay candidate under ?relay=1, and every reconnect failed.
    expect(h.whep.prepare.mock.calls.map(([, servers]) => servers)).toEqual([relay, relay]);
  });

  // Issue 29: SRS's API kick, or a network that changed under the connection, sends the
  // browser nothing; its ICE takes 5 to 10 s to say disconnected.
  it('media that stops while the connection still says connected is a drop: the new WHEP request goes 2 s after the last media, not 2 s after it was noticed', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    const stopped = Date.now();
    await h.advance(MEDIA_SILENCE_MS - MEDIA_POLL_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(0);
    await h.advance(MEDIA_POLL_MS * 2);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(h.ofType(networkChangeSuspected.type).map((a) => a.payload)).toEqual(['media']);
    expect(h.session().media).toBe('connected');
    // The silent connection is kept while the attempt waits: it may still come back.
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    // Its offer is made ahead, on the network of the moment, and sent when the 2 s are over.
    await h.advance(stopped + MEDIA_RECONNECT_DELAY_MS - MEDIA_POLL_MS - Date.now() - 1);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    expect(h.whep.prepare).toHaveBeenCalledTimes(2);
    // A timer tick after the 2 s (the wait is counted from the last media, to the millisecond).
    await h.advance(MEDIA_POLL_MS + 1 + 10);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.peers[0]?.close).toHaveBeenCalled();
    expect(h.services.remoteMedia.get()).toBe(h.peers[1]?.stream);
    expect(h.session()).toMatchObject({ status: 'live', media: 'connected', reconnects: { media: 1, signaling: 0 } });
    expect(Date.now() - stopped).toBeLessThanOrEqual(MEDIA_RECONNECT_DELAY_MS + 10);
  });

  // Issue 29: a phone that moved to a new network. The old path is gone for good, so the
  // specification's 2 s wait only delays the avatar.
  it('media that stops after the browser said its network changed goes to a new WHEP at once, its offer made then', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.networkChanged('online');
    await h.flush();
    h.peers[0]!.flowing = false;
    const stopped = Date.now();
    await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS + 10);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.services.remoteMedia.get()).toBe(h.peers[1]?.stream);
    expect(Date.now() - stopped).toBeLessThan(MEDIA_RECONNECT_DELAY_MS);
  });

  it('a network change heard while a reconnect waits sends its WHEP request at once', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    h.networkChanged('connection');
    await h.flush();
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.services.remoteMedia.get()).toBe(h.peers[1]?.stream);
  });

  it('the signaling channel rejoining on a new socket sends a waiting reconnect attempt at once: a media server that knows its viewers by the room refused one made before', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    h.dispatch(signalingResumed());
    await h.flush();
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
  });

  it('a short silence (MEDIA_DOUBT_MS) makes the app doubt its path once, before the drop, so the signaling channel asks its socket in time', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    const hints = () => h.ofType(networkChangeSuspected.type).map((a) => a.payload);
    await h.advance(MEDIA_DOUBT_MS - MEDIA_POLL_MS);
    expect(hints()).toEqual([]);
    await h.advance(MEDIA_POLL_MS * 2);
    expect(hints()).toEqual(['media']);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(0);
    await h.advance(MEDIA_SILENCE_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(hints()).toEqual(['media']);
  });

  it('an attempt made while the signaling channel resumes waits for it to rejoin the room, RESUME_WAIT_MS at most', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    h.dispatch(signalingStateChanged('resuming'));
    await h.advance(MEDIA_RECONNECT_DELAY_MS + MEDIA_POLL_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    h.dispatch(signalingResumed());
    await h.flush();
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
  });

  it('an attempt made while the signaling channel resumes goes after RESUME_WAIT_MS if the channel has not rejoined', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    h.dispatch(signalingStateChanged('resuming'));
    await h.advance(MEDIA_RECONNECT_DELAY_MS + MEDIA_POLL_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    await h.advance(RESUME_WAIT_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
  });

  it('the media going quiet by itself (no sign from the browser) still waits the specification\'s 2 s', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    h.dispatch(networkChangeSuspected('media'));
    await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
  });

  // A 5 s blackout on a relay-only link: every attempt made while the network was down failed
  // (no candidate could be gathered) and the connection that was about to come back had been
  // closed by the first, so the avatar never played again.
  it('a dropped connection is kept through attempts that met a dead network, uncounted, and media flowing on it again calls the reconnect off', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    h.plan.peers.splice(0, 1, 'unreachable', 'unreachable', 'unreachable', 'unreachable', 'unreachable');
    await h.advance(MEDIA_SILENCE_MS + MEDIA_RECONNECT_DELAY_MS * 5 + MEDIA_POLL_MS);
    // Five attempts met the dead network: more than the three allowed, none counted, and the
    // old connection is still there.
    expect(h.whep.connect.mock.calls.length).toBeGreaterThanOrEqual(1 + 5);
    expect(h.session().status).toBe('live');
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    h.peers[0]!.flowing = true;
    await h.advance(MEDIA_POLL_MS * 3);
    const attempts = h.whep.connect.mock.calls.length;
    await h.advance(MEDIA_RECONNECT_DELAY_MS * 3);
    expect(h.whep.connect).toHaveBeenCalledTimes(attempts);
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    expect(h.services.livePeer.get()).toBe(h.peers[0]);
    expect(h.session()).toMatchObject({ status: 'live' });
  });

  it('attempts the media server refused count: three refusals end the session even while the dropped connection may come back', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    h.plan.peers.splice(0, 1, 'fail', 'fail', 'fail');
    await h.advance(MEDIA_SILENCE_MS + MEDIA_RECONNECT_DELAY_MS * 3 + MEDIA_POLL_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(1 + 3);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'reconnectFailed' });
  });

  it('media that comes back by itself while the first attempt waits calls the reconnect off', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    h.peers[0]!.flowing = true;
    await h.advance(MEDIA_RECONNECT_DELAY_MS * 3);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    expect(h.services.remoteMedia.get()).toBe(h.peers[0]?.stream);
    expect(h.services.livePeer.get()).toBe(h.peers[0]);
    // And it is watched again: a second silence is a drop again.
    h.peers[0]!.flowing = false;
    await h.advance(MEDIA_SILENCE_MS + MEDIA_RECONNECT_DELAY_MS + MEDIA_POLL_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.session().status).toBe('live');
  });

  // CI, under load: the stand-in closed the peer, the silence was noticed, then one late frame
  // was played out; the reconnect was called off on it and the avatar froze while looking live.
  it('one late frame after a silence does not call the reconnect off: media must flow again for several polls', async () => {
    await goLive(h);
    await h.advance(MEDIA_POLL_MS * 4);
    h.peers[0]!.flowing = false;
    await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    h.peers[0]!.flowing = true;
    await h.advance(MEDIA_POLL_MS);
    h.peers[0]!.flowing = false;
    await h.advance(MEDIA_RECONNECT_DELAY_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.peers[0]?.close).toHaveBeenCalled();
    expect(h.services.livePeer.get()).toBe(h.peers[1]);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    expect(h.session()).toMatchObject({ status: 'live', media: 'connected', reconnects: { media: 1, signaling: 0 } });
  });

  it('a connection whose media never came (a server that sends nothing) is left to the start\'s limits, not reconnected', async () => {
    h.plan.peers.splice(0, 1, 'noMedia');
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(START_TIMEOUT_MS - 100);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(0);
  });

  it('tries 3 times 2 s apart, then shows reconnectFailed and ends the session', async () => {
    await goLive(h);
    h.plan.peers.splice(0, 1, 'fail');
    h.peers[0]?.emitState('failed');
    await h.flush();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await h.advance(1999);
      expect(h.whep.connect).toHaveBeenCalledTimes(attempt);
      await h.advance(1);
      expect(h.whep.connect).toHaveBeenCalledTimes(attempt + 1);
    }
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(3);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.reconnectFailed.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'reconnectFailed' });
    expect(h.sockets[0]?.types()).toContain('close_webrtc');
    expect(h.live.stopLive).toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('counts a new connection that never connects as a failed attempt', async () => {
    await goLive(h);
    h.plan.peers.splice(0, 1, 'silent');
    h.peers[0]?.emitState('disconnected');
    await h.advance(2000);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    await h.advance(MEDIA_CONNECT_TIMEOUT_MS - 1);
    expect(h.peers[1]?.close).not.toHaveBeenCalled();
    await h.advance(1);
    expect(h.peers[1]?.close).toHaveBeenCalled();
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(2);
  });

  it('bounds the whole attempt: a WHEP connect that never settles (a dead link) is aborted, and three such attempts end the session within 21 s', async () => {
    await goLive(h);
    h.plan.peers.splice(0, 1, 'hang');
    h.peers[0]?.emitState('disconnected');
    await h.flush();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await h.advance(MEDIA_RECONNECT_DELAY_MS);
      const attemptSignal = h.signals.whep?.[attempt];
      expect(attemptSignal?.aborted).toBe(false);
      await h.advance(MEDIA_CONNECT_TIMEOUT_MS);
      expect(attemptSignal?.aborted, `attempt ${attempt} was stopped`).toBe(true);
    }
    expect(MEDIA_RECONNECTS * (MEDIA_RECONNECT_DELAY_MS + MEDIA_CONNECT_TIMEOUT_MS)).toBeLessThanOrEqual(21_000);
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.reconnectFailed.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'reconnectFailed' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits for signaling to be open before reconnecting the media', async () => {
    await goLive(h);
    // The first reconnect's socket never opens (a black hole): still down when the media's 2 s are over.
    h.plan.sockets.splice(0, 1, 'silent', 'join');
    h.sockets[0]?.serverClose();
    h.peers[0]?.emitState('disconnected');
    await h.flush();
    await h.advance(MEDIA_RECONNECT_DELAY_MS);
    expect(h.session().signaling).toBe('reconnecting');
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    await h.advance(SIGNALING_OPEN_TIMEOUT_MS + SIGNALING_RECONNECT_DELAY_MS);
    expect(h.session().signaling).toBe('open');
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
  });

  // Candidate errors are informational (one unreachable STUN/TURN URL, UDP blocked for one of
  // several relays, an interface without a route) while other candidates connect.
  it('only logs ICE candidate errors before connecting: the connection goes on and the session goes live', async () => {
    h.plan.peers.splice(0, 1, 'silent');
    h.dispatch(startRequested());
    await h.flush();
    h.peers[0]?.emitIceError();
    h.peers[0]?.emitIceError();
    await h.flush();
    expect(h.state().notices.alert).toBeNull();
    expect(h.session().status).toBe('connecting');
    expect(h.peers[0]?.close).not.toHaveBeenCalled();
    h.peers[0]?.emitState('connected');
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session().status).toBe('live');
  });

  it('waits through a disconnect before the first connect: only failed, or the 15 s limit, ends it', async () => {
    h.plan.peers.splice(0, 1, 'silent');
    h.dispatch(startRequested());
    await h.flush();
    h.peers[0]?.emitState('disconnected');
    await h.flush();
    expect(h.session().status).toBe('connecting');
    expect(h.state().notices.alert).toBeNull();
    h.peers[0]?.emitState('failed');
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.iceError.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'iceError' });
    expect(h.peers[0]?.close).toHaveBeenCalled();
    expect(h.live.stopLive).toHaveBeenCalled();
  });

  it('shows the ICE error when the first connection fails', async () => {
    h.plan.peers.splice(0, 1, 'silent');
    h.dispatch(startRequested());
    await h.flush();
    h.peers[0]?.emitState('failed');
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.iceError.id });
    expect(h.session().endReason).toBe('iceError');
  });

  it('shows the ICE error when the first WHEP request fails', async () => {
    h.plan.peers.splice(0, 1, 'fail');
    h.dispatch(startRequested());
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.iceError.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'iceError' });
  });

  it('only logs an ICE candidate error once connected', async () => {
    await goLive(h);
    h.peers[0]?.emitIceError();
    await h.flush();
    expect(h.session().status).toBe('live');
  });
});

/*
 * docs/requirements.md R51: the avatar-video connection states connected, disconnected, closed and
 * failed are handled. The other three are pinned in media.test.ts; these are `closed`.
 *
 * A peer connection that is closed never carries media again. Once the session's media has
 * connected, a closed connection is therefore a drop like disconnected and failed: a new
 * WHEP connection, 3 attempts 2 s apart. Before the first connect it can no more recover
 * than a failed one: the ICE error. A reconnect attempt whose connection closes has failed.
 *
 * Found when these were written: media.ts published `closed` but acted on it only for a
 * reconnect attempt; on the live connection, and on the first one, it was waited through and
 * the session stayed "live" on media that was gone. Both cases failed before the fix.
 */
const mediaStates = () => h.ofType('session/mediaStateChanged').map((a) => a.payload);

describe('media: the closed state of the avatar-video connection', () => {
  it('is reported as the media state', async () => {
    await goLive(h);
    h.peers[0]?.emitState('closed');
    await h.flush();
    expect(mediaStates()).toEqual(['connected', 'closed']);
  });

  // media.ts does not handle it today (see the top of this file).
  it('on the live connection, is a drop: the connection is let go and a new WHEP connection replaces it', async () => {
    await goLive(h);
    h.peers[0]?.emitState('closed');
    await h.flush();
    expect(h.services.livePeer.get()).toBeNull();
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(1);
    await h.advance(MEDIA_RECONNECT_DELAY_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    expect(h.services.livePeer.get()).toBe(h.peers[1]);
    expect(h.services.remoteMedia.get()).toBe(h.peers[1]?.stream);
    expect(h.session()).toMatchObject({ status: 'live', media: 'connected', reconnects: { media: 1, signaling: 0 } });
  });

  // media.ts does not handle it today (see the top of this file).
  it('on the first connection, before it connected, is the ICE error at once', async () => {
    h.plan.peers.splice(0, 1, 'silent');
    h.dispatch(startRequested());
    await h.flush();
    h.peers[0]?.emitState('closed');
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.iceError.id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'iceError' });
    expect(h.live.stopLive).toHaveBeenCalled();
  });

  it('on a reconnect attempt, fails that attempt at once and the next one follows 2 s later', async () => {
    await goLive(h);
    h.plan.peers.splice(0, 1, 'silent', 'connect');
    h.peers[0]?.emitState('disconnected');
    await h.advance(MEDIA_RECONNECT_DELAY_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(2);
    h.peers[1]?.emitState('closed');
    await h.flush();
    // Given up at once (no time has passed), not at the attempt's own 5 s limit (MEDIA_CONNECT_TIMEOUT_MS).
    expect(h.peers[1]?.close).toHaveBeenCalled();
    expect(h.ofType('session/mediaAttemptStarted')).toHaveLength(2);
    await h.advance(MEDIA_RECONNECT_DELAY_MS);
    expect(h.whep.connect).toHaveBeenCalledTimes(3);
    expect(h.services.remoteMedia.get()).toBe(h.peers[2]?.stream);
    expect(h.session()).toMatchObject({ status: 'live', media: 'connected', reconnects: { media: 1, signaling: 0 } });
  });

  describe('what the reconnect hint reads (docs/requirements.md R117)', () => {
    it('from the drop the session is reconnecting; a new connection waits for the avatar to move; its first frame ends it', async () => {
      await goLive(h);
      expect(selectReconnecting(h.state())).toBe(false);
      h.plan.peers.splice(0, 1, 'silent', 'connect');
      h.peers[0]?.emitState('failed');
      await h.flush();
      expect(h.session().mediaRecovery).toBe('reconnecting');
      expect(selectReconnecting(h.state())).toBe(true);
      await h.advance(MEDIA_RECONNECT_DELAY_MS);
      h.peers[1]?.emitState('closed');
      await h.flush();
      expect(selectReconnecting(h.state())).toBe(true);
      await h.advance(MEDIA_RECONNECT_DELAY_MS);
      // Connected again, but the visitor still sees the frozen frame until the video moves.
      expect(h.ofType('session/mediaReconnected').map((a) => a.payload)).toEqual([{ how: 'new' }]);
      expect(h.session().mediaRecovery).toBe('awaitingVideo');
      expect(selectReconnecting(h.state())).toBe(true);
      h.dispatch(avatarMovedAgain());
      expect(selectReconnecting(h.state())).toBe(false);
      // One reconnect of two attempts.
      expect(h.ofType('session/mediaAttemptStarted').map((a) => a.payload)).toEqual([{ attempt: 1 }, { attempt: 2 }]);
      expect(h.session().reconnects).toEqual({ media: 1, signaling: 0 });
    });

    it('media back by itself also waits for the avatar to move; a second drop is a second reconnect', async () => {
      await goLive(h);
      await h.advance(MEDIA_POLL_MS * 4);
      h.peers[0]!.flowing = false;
      await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
      expect(selectReconnecting(h.state())).toBe(true);
      h.peers[0]!.flowing = true;
      await h.advance(MEDIA_RECONNECT_DELAY_MS);
      expect(h.ofType('session/mediaReconnected').map((a) => a.payload)).toEqual([{ how: 'back' }]);
      h.dispatch(avatarMovedAgain());
      expect(selectReconnecting(h.state())).toBe(false);
      h.peers[0]!.flowing = false;
      await h.advance(MEDIA_SILENCE_MS + MEDIA_POLL_MS);
      expect(selectReconnecting(h.state())).toBe(true);
      expect(h.session().reconnects).toEqual({ media: 2, signaling: 0 });
    });

    it('a signaling channel that reconnects is one reconnect, shown until it is open again', async () => {
      await goLive(h);
      h.sockets[0]?.serverClose(1012);
      await h.flush();
      expect(h.session().signaling).toBe('reconnecting');
      expect(selectReconnecting(h.state())).toBe(true);
      await h.advance(SIGNALING_RECONNECT_DELAY_MS);
      h.sockets[1]?.serverOpen();
      await h.flush();
      expect(selectReconnecting(h.state())).toBe(false);
      expect(h.session().reconnects).toEqual({ media: 0, signaling: 1 });
    });

    it('nothing is shown while the session is still connecting', () => {
      h.dispatch(startRequested());
      h.dispatch(signalingStateChanged('open'));
      h.dispatch(signalingStateChanged('reconnecting'));
      expect(selectReconnecting(h.state())).toBe(false);
    });
  });
});
