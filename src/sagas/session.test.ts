import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catalogue } from '../features/notices/messages.ts';
import {
  cancelRequested,
  endRequested,
  startRequested,
  videoCanPlay,
  videoPlayBlocked,
  videoPlaying,
} from '../features/session/sessionSlice.ts';
import { alertActionTaken, alertDismissed, alertShown } from '../features/notices/noticesSlice.ts';
import { HttpError } from '../services/http.ts';
import { LiveError } from '../services/live.ts';
import { setupSagas, type Harness } from './testing/harness.ts';
import { untilAborted } from './testing/fakes.ts';
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

/** Nothing of the session may survive its end. */
function expectNothingLeft() {
  for (const list of Object.values(h.signals)) for (const signal of list) expect(signal.aborted).toBe(true);
  for (const socket of h.sockets) expect(socket.closed).toBe(true);
  for (const peer of h.peers) expect(peer.close).toHaveBeenCalled();
  expect(h.services.remoteMedia.get()).toBeNull();
  expect(h.services.livePeer.get()).toBeNull();
  expect(vi.getTimerCount()).toBe(0);
  expect(h.session().status).toBe('idle');
}

describe('session', () => {
  it('goes from idle through connecting to live, in the documented order', async () => {
    h.dispatch(startRequested());
    expect(h.session().status).toBe('connecting');
    // Leaving asks for confirmation from Start chat on, not only once live.
    expect(h.platform.setLeaveGuard).toHaveBeenLastCalledWith(true);
    await h.flush();
    // route and start_live were both asked before either answer was used.
    expect(h.live.getRoute).toHaveBeenCalledWith({ uid: 'demo' }, expect.any(AbortSignal));
    expect(h.live.startLive).toHaveBeenCalledWith(
      { appId: 'demo', uid: 'demo', deviceId: 'H5123e4567e89b12d3a456426614174000' },
      // Not the session's signal: a start_live in flight when the session ends still answers with the room to stop.
      undefined,
      15_000,
    );
    // The WHEP offer was prepared from the start, with the session's signal.
    expect(h.whep.prepare).toHaveBeenCalledWith(h.whep.connect.mock.calls[0]?.[1]);
    expect(h.whep.prepare.mock.invocationCallOrder[0]).toBeGreaterThan(h.live.startLive.mock.invocationCallOrder[0]!);
    expect(h.socket.connect).toHaveBeenCalledWith('ws://127.0.0.1/ws/signaling');
    // The greeting waits until the avatar can be seen and heard.
    expect(h.sockets[0]?.types()).toEqual(['offer_2']);
    expect(h.whep.connect).toHaveBeenCalledWith({ srsLink: 'http://127.0.0.1', roomId: 'room-1' }, expect.any(AbortSignal));
    expect(h.services.remoteMedia.get()).toBe(h.peers[0]?.stream);
    const phases = h.ofType('session/connectPhaseReached').map((a) => a.payload);
    expect(phases).toEqual(['startLive', 'stream', 'media', 'video']);
    expect(h.session().status).toBe('connecting');

    h.dispatch(videoCanPlay());
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'live', roomId: 'room-1', signaling: 'open', media: 'connected' });
    expect(h.platform.setLeaveGuard).toHaveBeenLastCalledWith(true);
    expect(h.sockets[0]?.types()).toEqual(['offer_2', 'say_hello']);
    expect(h.sockets[0]?.sent[1]).toMatchObject({ data: { lang: 'en' }, room_id: 'room-1', app_id: 'demo' });
  });

  // The specification names no message type for command words (PROTOCOL.md, *Reading a frame*).
  it.each([
    ['with no msg_type', { command: 'asr_ready' }],
    ['on an asr frame', { msg_type: 'asr', command: 'asr_ready' }],
    ['on a tts frame', { msg_type: 'tts', command: 'asr_ready' }],
  ])('goes live when the server sends asr_ready %s', async (_shape, asrReady) => {
    h.task.cancel();
    h = setupSagas({ asrReady });
    await h.flush();
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'live', signaling: 'open' });
    expect(h.sockets[0]?.types()).toEqual(['offer_2', 'say_hello']);
  });

  it('sends the start requests only once the tap’s own answer (connecting) has painted; Cancel meanwhile starts nothing', async () => {
    let painted!: () => void;
    h.platform.afterNextPaint.mockImplementation(() => new Promise<void>((resolve) => (painted = resolve)));
    h.dispatch(startRequested());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'connecting', phase: 'route' });
    expect(h.live.getRoute).not.toHaveBeenCalled();
    painted();
    await h.flush();
    expect(h.live.getRoute).toHaveBeenCalledTimes(1);
    h.dispatch(cancelRequested());
    await h.flush();

    h.platform.afterNextPaint.mockImplementation(() => new Promise<void>(() => {}));
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(cancelRequested());
    await h.flush();
    expect(h.session().status).toBe('idle');
    expect(h.live.getRoute).toHaveBeenCalledTimes(1);
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
  });

  it('shows the please-wait toast when Start chat is pressed again while connecting', async () => {
    h.live.startLive.mockImplementation((_p, signal) => untilAborted(signal));
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(startRequested());
    await h.flush();
    expect(h.state().notices.toasts.map((t) => t.message)).toEqual([{ id: catalogue.pleaseWait.id }]);
    expect(h.live.startLive).toHaveBeenCalledTimes(1);
  });

  it('shows the route msg in an alert when /get/route answers code 1, and never starts a room', async () => {
    const refused = new LiveError('routeRefused', 'refused', 'route refused');
    h.live.getRoute.mockImplementation(() => new Promise((_resolve, reject) => setTimeout(() => reject(refused), 100)));
    h.dispatch(startRequested());
    await h.advance(100);
    expect(h.state().notices.alert?.message).toEqual({ text: 'route refused' });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'startFailed' });
    expect(h.live.startLive).not.toHaveBeenCalled();
    expect(h.live.stopLive).not.toHaveBeenCalled();
    expectNothingLeft();
  });

  it('shows routeFailed when /get/route fails otherwise, abandoning a start_live still in flight', async () => {
    h.live.getRoute.mockRejectedValue(new LiveError('routeFailed', 'HTTP 500'));
    h.live.startLive.mockImplementation((_p, signal) => untilAborted(signal));
    h.dispatch(startRequested());
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.routeFailed.id });
    expect(h.live.stopLive).not.toHaveBeenCalled();
    expectNothingLeft();
  });

  it('shows the start_live errmsg in an alert and stops nothing', async () => {
    h.live.startLive.mockRejectedValue(new LiveError('startRefused', 'refused', 'no avatar available'));
    h.dispatch(startRequested());
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ text: 'no avatar available' });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'startFailed' });
    expect(h.live.stopLive).not.toHaveBeenCalled();
    expectNothingLeft();
  });

  it.each([
    ['a network error', new LiveError('startFailed', 'start_live: network', null, new HttpError('network', 'Failed to fetch')), catalogue.startUnreachable.id],
    ['a 503 with no JSON', new LiveError('startFailed', 'start_live: 503', null, new HttpError('status', 'HTTP 503', 503)), catalogue.startFailed.id],
    ['an answer without a room', new LiveError('startFailed', 'start_live: no room in the answer'), catalogue.startFailed.id],
    ['status error with an empty errmsg', new LiveError('startRefused', 'start_live refused: ', null), catalogue.startFailed.id],
  ])('a start_live that fails by %s says so in an alert (R118), and Start chat is offered again', async (_what, error, id) => {
    h.live.startLive.mockRejectedValue(error);
    h.dispatch(startRequested());
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id });
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'startFailed' });
    expectNothingLeft();
  });

  it('ends silently after 15 s when the stream never becomes active, and stops the started room', async () => {
    h.streams.isStreamActive.mockResolvedValue(false);
    h.dispatch(startRequested());
    await h.advance(14_999);
    expect(h.session().status).toBe('connecting');
    await h.advance(1);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'timeout' });
    expect(h.state().notices.alert).toBeNull();
    expect(h.state().notices.toasts).toEqual([]);
    expect(h.live.stopLive).toHaveBeenCalledWith({ roomId: 'room-1', deviceId: expect.any(String) });
    expect(h.sockets[0]?.types()).toContain('close_webrtc');
    expectNothingLeft();
  });

  it('ends silently after 15 s when start_live never answers', async () => {
    h.live.startLive.mockImplementation((_p, signal) => untilAborted(signal));
    h.dispatch(startRequested());
    await h.advance(15_000);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'timeout' });
    expect(h.state().notices.alert).toBeNull();
    expect(h.live.stopLive).not.toHaveBeenCalled();
    expectNothingLeft();
  });

  it('polls the streams at once, then every 400 ms until the stream is active', async () => {
    h.streams.isStreamActive.mockResolvedValueOnce(false).mockResolvedValueOnce(false).mockResolvedValue(true);
    h.dispatch(startRequested());
    await h.flush();
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(1);
    await h.advance(399);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(1);
    await h.advance(1);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(2);
    expect(h.whep.connect).not.toHaveBeenCalled();
    await h.advance(400);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(3);
    expect(h.whep.connect).toHaveBeenCalledTimes(1);
    expect(h.streams.isStreamActive).toHaveBeenCalledWith({ srsLink: 'http://127.0.0.1', roomId: 'room-1' }, expect.any(AbortSignal));
  });

  it('counts the 400 ms from the start of a poll, and polls at once after an answer slower than that', async () => {
    const answer = (ms: number, active: boolean) => () => new Promise<boolean>((resolve) => setTimeout(() => resolve(active), ms));
    h.streams.isStreamActive
      .mockImplementationOnce(answer(300, false))
      .mockImplementationOnce(answer(500, false))
      .mockImplementation(answer(10, true));
    h.dispatch(startRequested());
    await h.flush();
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(1);
    // The first answer came at 300 ms: the second poll goes at 400, not 700.
    await h.advance(399);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(1);
    await h.advance(1);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(2);
    // The second answer takes 500 ms: the third poll follows it at once.
    await h.advance(500);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(3);
  });

  it('keeps polling after a failed poll', async () => {
    h.streams.isStreamActive.mockRejectedValueOnce(new Error('HTTP 502')).mockResolvedValue(true);
    h.dispatch(startRequested());
    await h.advance(400);
    expect(h.streams.isStreamActive).toHaveBeenCalledTimes(2);
    expect(h.session().phase).toBe('video');
  });

  const cancelSteps: [string, (h: Harness) => void, boolean][] = [
    ['route', (x) => x.live.getRoute.mockImplementation((_p, s) => untilAborted(s)), false],
    ['start_live', (x) => x.live.startLive.mockImplementation((_p, s) => untilAborted(s)), false],
    ['polling', (x) => x.streams.isStreamActive.mockResolvedValue(false), true],
    ['signaling', (x) => x.plan.sockets.splice(0, 1, 'silent'), true],
    ['WHEP', (x) => x.whep.connect.mockImplementation((_t, s) => untilAborted(s)), true],
    ['waiting for the video', () => {}, true],
  ];

  it('cancel while start_live is in flight: the ending does not wait for it, and the room it answers with is stopped', async () => {
    h.live.startLive.mockImplementation(
      () => new Promise((resolve) => setTimeout(() => resolve({ roomId: 'room-late', systemType: null }), 3000)),
    );
    h.dispatch(startRequested());
    await h.advance(1000);
    h.dispatch(cancelRequested());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'cancelled' });
    expect(h.live.stopLive).not.toHaveBeenCalled();
    await h.advance(2000);
    expect(h.live.stopLive).toHaveBeenCalledWith({ roomId: 'room-late', deviceId: expect.any(String) });
    expect(h.sockets).toEqual([]);
  });

  it('the 15 s rule while start_live is in flight: a room answered later is stopped too', async () => {
    h.live.startLive.mockImplementation(
      () => new Promise((resolve) => setTimeout(() => resolve({ roomId: 'room-late', systemType: null }), 15_500)),
    );
    h.dispatch(startRequested());
    await h.advance(15_000);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'timeout' });
    await h.advance(500);
    expect(h.live.stopLive).toHaveBeenCalledWith({ roomId: 'room-late', deviceId: expect.any(String) });
  });

  it('a start_live that fails after the session ended stops nothing', async () => {
    h.live.startLive.mockImplementation(() => new Promise((_resolve, reject) => setTimeout(() => reject(new LiveError('startFailed', 'HTTP 502')), 2000)));
    h.dispatch(startRequested());
    await h.advance(500);
    h.dispatch(cancelRequested());
    await h.advance(2000);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'cancelled' });
    expect(h.live.stopLive).not.toHaveBeenCalled();
  });

  it.each(cancelSteps)('cancel while at %s leaves nothing behind', async (_step, arrange, roomStarted) => {
    arrange(h);
    h.dispatch(startRequested());
    await h.advance(1000);
    expect(h.session().status).toBe('connecting');
    h.dispatch(cancelRequested());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'cancelled' });
    if (roomStarted) expect(h.live.stopLive).toHaveBeenCalledWith({ roomId: 'room-1', deviceId: expect.any(String) });
    else expect(h.live.stopLive).not.toHaveBeenCalled();
    expectNothingLeft();
  });

  it('ending by the visitor sends close_webrtc, then stop_live, and releases everything', async () => {
    await goLive(h);
    h.dispatch(endRequested());
    expect(h.session().status).toBe('ending');
    await h.flush();
    expect(h.sockets[0]?.types()).toEqual(['offer_2', 'say_hello', 'close_webrtc']);
    expect(h.live.stopLive).toHaveBeenCalledTimes(1);
    const order = h.types().filter((t) => t === 'session/sessionEnding' || t === 'session/sessionEnded');
    expect(order).toEqual(['session/sessionEnding', 'session/sessionEnded']);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'user' });
    expect(h.platform.setLeaveGuard).toHaveBeenLastCalledWith(false);
    expectNothingLeft();
  });

  it('starts again after a session has ended', async () => {
    await goLive(h);
    h.dispatch(endRequested());
    await h.flush();
    h.live.startLive.mockResolvedValue({ roomId: 'room-2', systemType: null });
    await goLive(h);
    expect(h.session().roomId).toBe('room-2');
    expect(h.sockets).toHaveLength(2);
    expect(h.sockets[1]?.types()).toEqual(['offer_2', 'say_hello']);
  });

  it('shows webrtcUnsupported and calls nothing when the browser has no WebRTC', async () => {
    h.whep.isSupported.mockReturnValue(false);
    h.dispatch(startRequested());
    await h.flush();
    expect(h.state().notices.alert?.message).toEqual({ id: catalogue.webrtcUnsupported.id });
    expect(h.live.getRoute).not.toHaveBeenCalled();
    expect(h.session().status).toBe('idle');
  });

  it('asks for a tap to play when the video cannot play within 5 s', async () => {
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(5000);
    expect(h.state().notices.alert).toMatchObject({ message: { id: catalogue.videoNotStarted.id }, action: 'tapToPlay' });
    expect(h.session().needsTapToPlay).toBe(true);
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'live', needsTapToPlay: false });
    await h.advance(20_000);
    expect(h.session().status).toBe('live');
  });

  /** A session whose media connects and never brings a video frame (SRS's 201 for a stream nobody publishes). */
  async function startWithoutFrames() {
    h.plan.peers.splice(0, 1, 'noMedia');
    h.dispatch(startRequested());
    await h.flush();
  }

  it('does not ask for a tap while no video frame has arrived (201 and no media): the photo stays and the start limit ends the session silently', async () => {
    await startWithoutFrames();
    await h.advance(5000);
    expect(h.state().notices.alert).toBeNull();
    expect(h.session()).toMatchObject({ status: 'connecting', needsTapToPlay: false });
    await h.advance(11_000);
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'timeout' });
    expect(h.state().notices.alert).toBeNull();
    expect(h.live.stopLive).toHaveBeenCalled();
    expectNothingLeft();
  });

  it('asks for a tap once a late first frame has come but the video still cannot play', async () => {
    await startWithoutFrames();
    await h.advance(6000);
    expect(h.state().notices.alert).toBeNull();
    h.peers[0]!.framesReceived = 3;
    await h.advance(1000);
    expect(h.state().notices.alert).toMatchObject({ message: { id: catalogue.videoNotStarted.id }, action: 'tapToPlay' });
  });

  it('asks for a tap with an alert when autoplay is refused while connecting, saying the sound is held back (not "refresh")', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlayBlocked());
    await h.flush();
    expect(h.state().notices.alert).toMatchObject({ message: { id: catalogue.soundBlocked.id }, action: 'tapToPlay' });
    expect(h.session()).toMatchObject({ status: 'connecting', needsTapToPlay: true });
    await h.advance(20_000);
    expect(h.session().status).toBe('connecting');
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session().status).toBe('live');
  });
  it('OK on the sound-blocked alert ends the session and stops its room', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlayBlocked());
    await h.flush();
    const roomId = h.session().roomId;
    expect(roomId).not.toBeNull();
    h.dispatch(alertDismissed());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'cancelled' });
    expect(h.live.stopLive).toHaveBeenCalledWith({ roomId, deviceId: expect.any(String) });
    expectNothingLeft();
  });

  it('OK on the watchdog\'s tap-to-play alert ends the session too', async () => {
    h.dispatch(startRequested());
    await h.flush();
    await h.advance(5000);
    expect(h.state().notices.alert?.action).toBe('tapToPlay');
    h.dispatch(alertDismissed());
    await h.flush();
    expect(h.session()).toMatchObject({ status: 'idle', endReason: 'cancelled' });
    expect(h.live.stopLive).toHaveBeenCalled();
  });

  it('Tap to play closes the alert without ending: the session goes live once the avatar plays', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlayBlocked());
    await h.flush();
    h.dispatch(alertActionTaken());
    await h.flush();
    expect(h.session().status).toBe('connecting');
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.session().status).toBe('live');
    expect(h.live.stopLive).not.toHaveBeenCalled();
  });

  it('an alert that replaced the tap-to-play one is only closed by its OK', async () => {
    h.dispatch(startRequested());
    await h.flush();
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlayBlocked());
    await h.flush();
    h.dispatch(alertShown({ id: catalogue.mediaAccessFailed.id }));
    h.dispatch(alertDismissed());
    await h.flush();
    expect(h.session().status).toBe('connecting');
  });
});
