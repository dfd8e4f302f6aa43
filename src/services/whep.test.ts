import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError, type HttpClient, type TextResponse } from './http.ts';
import { CANDIDATE_SETTLE_MS, createWhepService, whepUrl, type PeerEvent } from './whep.ts';

/** Just enough of RTCPeerConnection for the WHEP flow. */
class FakePeerConnection extends EventTarget {
  static last: FakePeerConnection | null = null;
  /** What gathering adds to the offer (a browser puts its candidates in localDescription). */
  static gathered = '\r\na=candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host';
  /** How long gathering takes. */
  static gatherMs = 10;
  connectionState: RTCPeerConnectionState = 'new';
  iceGatheringState: RTCIceGatheringState = 'gathering';
  localDescription: RTCSessionDescriptionInit | null = null;
  remoteDescription: RTCSessionDescriptionInit | null = null;
  transceivers: [string, RTCRtpTransceiverInit | undefined][] = [];
  closed = false;
  constructor(readonly config: RTCConfiguration) {
    super();
    FakePeerConnection.last = this;
  }
  addTransceiver(kind: string, init?: RTCRtpTransceiverInit) {
    this.transceivers.push([kind, init]);
  }
  createOffer() {
    return Promise.resolve({ type: 'offer' as const, sdp: 'v=0 offer' });
  }
  setLocalDescription(desc: RTCSessionDescriptionInit) {
    this.localDescription = desc;
    // Gathering finishes a little later, like a browser's.
    setTimeout(() => {
      this.localDescription = { ...desc, sdp: `${desc.sdp ?? ''}${FakePeerConnection.gathered}` };
      if (FakePeerConnection.gathered) this.dispatchEvent(Object.assign(new Event('icecandidate'), { candidate: {} }));
      this.iceGatheringState = 'complete';
      this.dispatchEvent(new Event('icegatheringstatechange'));
    }, FakePeerConnection.gatherMs);
    return Promise.resolve();
  }
  setRemoteDescription(desc: RTCSessionDescriptionInit) {
    this.remoteDescription = desc;
    return Promise.resolve();
  }
  getStats() {
    return Promise.resolve(new Map());
  }
  receivers: { track: { kind: string } | null; getStats: () => Promise<Map<string, unknown>> }[] = [];
  getReceivers() {
    return this.receivers;
  }
  close() {
    this.closed = true;
  }
  setState(state: RTCPeerConnectionState) {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}

/** A stats report that counts how often it was walked, and answers `get` like the browser's. */
type FakeStat = { id?: string; type: string; packetsReceived?: number };
class FakeStatsReport extends Map<string, FakeStat> {
  static walks = 0;
  constructor(stats: FakeStat[]) {
    super(stats.map((stat, i) => [stat.id ?? `no id ${i}`, stat]));
  }
  override forEach(...args: Parameters<Map<string, FakeStat>['forEach']>) {
    FakeStatsReport.walks += 1;
    super.forEach(...args);
  }
  // Every other way through the report is a walk too: each turns every statistic into an object.
  override values() {
    FakeStatsReport.walks += 1;
    return super.values();
  }
  override entries() {
    FakeStatsReport.walks += 1;
    return super.entries();
  }
  override [Symbol.iterator]() {
    FakeStatsReport.walks += 1;
    return super[Symbol.iterator]();
  }
}

class FakeMediaStream {
  tracks: unknown[] = [];
  getTracks() {
    return this.tracks;
  }
  addTrack(track: unknown) {
    this.tracks.push(track);
  }
}

function setup(answer: () => Promise<TextResponse>, hangUp: () => Promise<TextResponse> = () => Promise.resolve({ status: 200, text: 'closed' })) {
  const postText = vi.fn(answer);
  const deleteFn = vi.fn((_url: string, _opts?: unknown) => hangUp());
  const service = createWhepService({
    http: { postText, delete: deleteFn } as unknown as HttpClient,
    iceServers: [{ urls: 'turn:turn.example:3478', username: 'u', credential: 'c' }],
    createPeer: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
    iceGatheringTimeoutMs: 1000,
  });
  return { service, postText, deleteFn };
}

beforeEach(() => {
  vi.stubGlobal('MediaStream', FakeMediaStream);
});

const OFFER = `v=0 offer${FakePeerConnection.gathered}`;

afterEach(() => {
  vi.unstubAllGlobals();
  FakePeerConnection.last = null;
  FakePeerConnection.gathered = '\r\na=candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host';
  FakePeerConnection.gatherMs = 10;
});

describe('whep', () => {
  it('builds the WHEP URL of the room', () => {
    expect(whepUrl('http://h:8080', 'room 1')).toBe('http://h:8080/rtc/v1/whep/?app=live&stream=room%201');
  });

  it('offers recvonly video and audio, posts the gathered offer as application/sdp and applies the answer', async () => {
    const { service, postText } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    const connection = await service.connect({ srsLink: 'http://h', roomId: 'r-1' }, new AbortController().signal);
    const pc = FakePeerConnection.last;
    expect(pc?.config.iceServers).toHaveLength(1);
    expect(pc?.transceivers).toEqual([
      ['video', { direction: 'recvonly' }],
      ['audio', { direction: 'recvonly' }],
    ]);
    expect(pc?.iceGatheringState).toBe('complete');
    expect(postText).toHaveBeenCalledWith('http://h/rtc/v1/whep/?app=live&stream=r-1', OFFER, 'application/sdp', {
      signal: expect.any(AbortSignal),
    });
    expect(pc?.remoteDescription).toEqual({ type: 'answer', sdp: 'v=0 answer' });
    expect(connection.connectionState()).toBe('new');
  });

  it("uses the session's own ICE servers (from its route) when given, for a prepared offer and for a reconnect alike", async () => {
    const { service } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    const own = [{ urls: ['turn:10.0.0.5:8080?transport=udp'], username: '1700000000:ab12', credential: 'c2lnbmVk' }];
    const session = new AbortController();
    service.prepare(session.signal, own);
    expect(FakePeerConnection.last?.config.iceServers).toEqual(own);
    await service.connect({ srsLink: 'http://h', roomId: 'r-1', iceServers: own }, session.signal);
    await service.connect({ srsLink: 'http://h', roomId: 'r-1', iceServers: own }, session.signal);
    expect(FakePeerConnection.last?.config.iceServers).toEqual(own);
    // Without its own, the build's.
    await service.connect({ srsLink: 'http://h', roomId: 'r-1' }, session.signal);
    expect(FakePeerConnection.last?.config.iceServers).toEqual([{ urls: 'turn:turn.example:3478', username: 'u', credential: 'c' }]);
  });

  describe('hanging up (DELETE of the Location, RFC 9725)', () => {
    const LOCATION = '/rtc/v1/whep/?action=delete&token=t1&app=live&stream=r-1&session=s1';
    const answered = () => Promise.resolve({ status: 201, text: 'v=0 answer', location: LOCATION });

    it('sends DELETE to the answer\'s Location, resolved against the media server, once, when the connection closes', async () => {
      const { service, deleteFn } = setup(answered);
      const connection = await service.connect({ srsLink: 'http://h:1985', roomId: 'r-1' }, new AbortController().signal);
      expect(deleteFn).not.toHaveBeenCalled();
      connection.close();
      connection.close();
      expect(deleteFn).toHaveBeenCalledTimes(1);
      expect(deleteFn).toHaveBeenCalledWith(`http://h:1985${LOCATION}`, { keepalive: true });
      expect(FakePeerConnection.last?.closed).toBe(true);
    });

    it('never holds up the ending: close() returns while the DELETE hangs, and a failed DELETE is only logged', async () => {
      const never = new Promise<TextResponse>(() => {});
      const { service, deleteFn } = setup(answered, () => never);
      const connection = await service.connect({ srsLink: 'http://h', roomId: 'r-1' }, new AbortController().signal);
      expect(connection.close()).toBeUndefined();
      expect(deleteFn).toHaveBeenCalledTimes(1);
      const failing = setup(answered, () => Promise.reject(new HttpError('network', 'gone')));
      const second = await failing.service.connect({ srsLink: 'http://h', roomId: 'r-1' }, new AbortController().signal);
      expect(() => second.close()).not.toThrow();
      await Promise.resolve();
    });

    it('hangs up the session of an answer it could not use', async () => {
      const { service, deleteFn } = setup(() => Promise.resolve({ status: 201, text: 'not sdp', location: LOCATION }));
      await expect(service.connect({ srsLink: 'http://h', roomId: 'r-1' }, new AbortController().signal)).rejects.toThrow(/answer rejected/);
      expect(deleteFn).toHaveBeenCalledWith(`http://h${LOCATION}`, { keepalive: true });
    });

    it('sends no DELETE when the media server closed the connection without an answer (SRS refusing the offer)', async () => {
      const { service, deleteFn } = setup(() => Promise.reject(new HttpError('network', 'http://h/rtc/v1/whep/: TypeError: Failed to fetch')));
      await expect(service.connect({ srsLink: 'http://h', roomId: 'r-1' }, new AbortController().signal)).rejects.toMatchObject({ kind: 'network' });
      expect(FakePeerConnection.last?.closed).toBe(true);
      expect(deleteFn).not.toHaveBeenCalled();
    });
  });

  it("marks the video receiver's inbound packets, reading the stream by its id once found and walking the report again when the reading stands still", async () => {
    const { service } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    const connection = await service.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal);
    let stats: FakeStat[] = [];
    const others = [
      { id: 'C1', type: 'codec' },
      { id: 'T1', type: 'transport' },
      { id: 'CP1', type: 'candidate-pair' },
    ];
    FakePeerConnection.last!.receivers = [
      { track: { kind: 'audio' }, getStats: () => Promise.reject(new Error('the audio receiver is not asked')) },
      { track: { kind: 'video' }, getStats: () => Promise.resolve(new FakeStatsReport([...others, ...stats])) },
    ];
    FakeStatsReport.walks = 0;
    // Before the first packet the browser has no inbound-rtp yet: nothing arrived, walked each time.
    await expect(connection.mediaMark()).resolves.toBeNull();
    await expect(connection.mediaMark()).resolves.toBeNull();
    expect(FakeStatsReport.walks).toBe(2);
    stats = [{ id: 'IT01V1', type: 'inbound-rtp', packetsReceived: 10 }];
    await expect(connection.mediaMark()).resolves.toBe(10);
    expect(FakeStatsReport.walks).toBe(3);
    // While media flows, the stream is read by its id: the report is not walked.
    for (const packets of [12, 15, 19]) {
      stats = [{ id: 'IT01V1', type: 'inbound-rtp', packetsReceived: packets }];
      await expect(connection.mediaMark()).resolves.toBe(packets);
    }
    expect(FakeStatsReport.walks).toBe(3);
    // The stream stalled and the publisher's new SSRC brought a new one: the walk finds it.
    stats = [
      { id: 'IT01V1', type: 'inbound-rtp', packetsReceived: 19 },
      { id: 'IT01V2', type: 'inbound-rtp', packetsReceived: 4 },
    ];
    await expect(connection.mediaMark()).resolves.toBe(23);
    expect(FakeStatsReport.walks).toBe(4);
    stats = [
      { id: 'IT01V1', type: 'inbound-rtp', packetsReceived: 19 },
      { id: 'IT01V2', type: 'inbound-rtp', packetsReceived: 9 },
    ];
    await expect(connection.mediaMark()).resolves.toBe(28);
    expect(FakeStatsReport.walks).toBe(4);
    // Nothing new: the mark stands still, and is the whole report's.
    await expect(connection.mediaMark()).resolves.toBe(28);
    expect(FakeStatsReport.walks).toBe(5);
    // A stream gone: walked again, and the figure is that of the streams left.
    stats = [{ id: 'IT01V2', type: 'inbound-rtp', packetsReceived: 11 }];
    await expect(connection.mediaMark()).resolves.toBe(11);
    expect(FakeStatsReport.walks).toBe(6);
    stats = [];
    await expect(connection.mediaMark()).resolves.toBeNull();
  });

  it('walks the report every time when a stream has no id to read it by (the specification gives every statistic one)', async () => {
    const { service } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    const connection = await service.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal);
    let stats: FakeStat[] = [];
    FakePeerConnection.last!.receivers = [{ track: { kind: 'video' }, getStats: () => Promise.resolve(new FakeStatsReport(stats)) }];
    FakeStatsReport.walks = 0;
    for (const [i, packets] of [5, 8, 8, 13].entries()) {
      stats = [
        { id: 'IT01V1', type: 'inbound-rtp', packetsReceived: 100 },
        { type: 'inbound-rtp', packetsReceived: packets },
      ];
      await expect(connection.mediaMark()).resolves.toBe(100 + packets);
      expect(FakeStatsReport.walks).toBe(i + 1);
    }
  });

  it('replays the events raised before the first subscriber', async () => {
    const { service } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    const connection = await service.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal);
    FakePeerConnection.last?.setState('connecting');
    const seen: PeerEvent[] = [];
    connection.subscribe((e) => seen.push(e));
    FakePeerConnection.last?.setState('connected');
    expect(seen).toEqual([
      { type: 'connectionState', state: 'connecting' },
      { type: 'connectionState', state: 'connected' },
    ]);
    connection.close();
    expect(FakePeerConnection.last?.closed).toBe(true);
  });

  it.each([
    ['a 200 answer', { status: 200, text: 'v=0' }],
    ['an answer that is not SDP', { status: 201, text: '<html>' }],
  ])('rejects %s and closes the peer connection', async (_name, answer) => {
    const { service } = setup(() => Promise.resolve(answer));
    await expect(service.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal)).rejects.toMatchObject({ kind: 'answer' });
    expect(FakePeerConnection.last?.closed).toBe(true);
  });

  it('stops and closes the peer connection when aborted during ICE gathering', async () => {
    const { service, postText } = setup(() => Promise.resolve({ status: 201, text: 'v=0' }));
    const controller = new AbortController();
    // Gathering that would take a minute: the abort lands in it on any machine.
    FakePeerConnection.gatherMs = 60_000;
    const pending = service.connect({ srsLink: '', roomId: 'r' }, controller.signal);
    await expect.poll(() => FakePeerConnection.last?.iceGatheringState).toBe('gathering');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(FakePeerConnection.last?.closed).toBe(true);
    expect(postText).not.toHaveBeenCalled();
  });

  it('closes the peer connection when aborted while the answer is awaited', async () => {
    const controller = new AbortController();
    const { service } = setup(
      () =>
        new Promise((resolve) => {
          controller.abort();
          resolve({ status: 201, text: 'v=0' });
        }),
    );
    await expect(service.connect({ srsLink: '', roomId: 'r' }, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(FakePeerConnection.last?.closed).toBe(true);
    expect(FakePeerConnection.last?.remoteDescription).toBeNull();
  });

  it('prepares the offer ahead of connect, which then posts it at once on the same peer connection', async () => {
    const { service, postText } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    const controller = new AbortController();
    service.prepare(controller.signal);
    const preparedPeer = FakePeerConnection.last;
    expect(preparedPeer?.transceivers.map(([kind]) => kind)).toEqual(['video', 'audio']);
    // A second prepare while one is ready builds nothing new.
    service.prepare(controller.signal);
    expect(FakePeerConnection.last).toBe(preparedPeer);
    await expect.poll(() => preparedPeer?.iceGatheringState).toBe('complete');

    await service.connect({ srsLink: 'http://media', roomId: 'r' }, controller.signal);
    expect(FakePeerConnection.last).toBe(preparedPeer);
    expect(postText).toHaveBeenCalledWith(whepUrl('http://media', 'r'), OFFER, 'application/sdp', expect.anything());
    expect(preparedPeer?.remoteDescription).toEqual({ type: 'answer', sdp: 'v=0 answer' });
    // The next connect (a media reconnect) builds its own.
    await service.connect({ srsLink: 'http://media', roomId: 'r' }, controller.signal);
    expect(FakePeerConnection.last).not.toBe(preparedPeer);
  });

  it('closes a prepared peer connection that nobody took when its signal aborts', () => {
    const { service } = setup(() => Promise.resolve({ status: 201, text: 'v=0' }));
    const controller = new AbortController();
    service.prepare(controller.signal);
    const preparedPeer = FakePeerConnection.last;
    controller.abort();
    expect(preparedPeer?.closed).toBe(true);
    // A later session does not get it.
    service.prepare(new AbortController().signal);
    expect(FakePeerConnection.last).not.toBe(preparedPeer);
  });

  it('a connect aborted while it waits for a prepared offer rejects and closes the peer connection', async () => {
    const { service, postText } = setup(() => Promise.resolve({ status: 201, text: 'v=0' }));
    service.prepare(new AbortController().signal);
    const connectAbort = new AbortController();
    const pending = service.connect({ srsLink: '', roomId: 'r' }, connectAbort.signal);
    connectAbort.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(FakePeerConnection.last?.closed).toBe(true);
    expect(postText).not.toHaveBeenCalled();
  });

  it('a peer connection the browser refuses while preparing is left to connect(), which reports it', async () => {
    const postText = vi.fn(() => Promise.resolve({ status: 201, text: 'v=0' }));
    let refusals = 1;
    const service = createWhepService({
      http: { postText } as unknown as HttpClient,
      iceServers: [],
      createPeer: (config) => {
        if (refusals-- > 0) throw new DOMException('bad ICE server', 'SyntaxError');
        return new FakePeerConnection(config) as unknown as RTCPeerConnection;
      },
    });
    const controller = new AbortController();
    expect(() => service.prepare(controller.signal)).not.toThrow();
    expect(FakePeerConnection.last).toBeNull();
    await service.connect({ srsLink: '', roomId: 'r' }, controller.signal);
    expect(FakePeerConnection.last?.remoteDescription).toEqual({ type: 'answer', sdp: 'v=0' });
  });

  it('asks for relay-only ICE when told to, and for every candidate by default', async () => {
    const { service } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    await service.connect({ srsLink: 'http://h', roomId: 'r' }, new AbortController().signal);
    expect(FakePeerConnection.last?.config.iceTransportPolicy).toBe('all');
    const relayOnly = createWhepService({
      http: { postText: vi.fn(() => Promise.resolve({ status: 201, text: 'v=0' })) } as unknown as HttpClient,
      iceServers: [],
      iceTransportPolicy: 'relay',
      createPeer: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
    });
    await relayOnly.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal);
    expect(FakePeerConnection.last?.config.iceTransportPolicy).toBe('relay');
  });

  it('an offer without one candidate (every ICE server refused) is an ICE error, posted nowhere, its peer closed', async () => {
    FakePeerConnection.gathered = '';
    const { service, postText } = setup(() => Promise.resolve({ status: 201, text: 'v=0 answer' }));
    await expect(service.connect({ srsLink: 'http://h', roomId: 'r' }, new AbortController().signal)).rejects.toMatchObject({
      name: 'WhepError',
      kind: 'ice',
    });
    expect(postText).not.toHaveBeenCalled();
    expect(FakePeerConnection.last?.closed).toBe(true);
  });

  it('past the gathering timeout with no candidate yet, it waits for the first one instead of posting an empty offer', async () => {
    FakePeerConnection.gatherMs = 60;
    const postText = vi.fn(() => Promise.resolve({ status: 201, text: 'v=0' }));
    const service = createWhepService({
      http: { postText } as unknown as HttpClient,
      iceServers: [],
      createPeer: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
      iceGatheringTimeoutMs: 5,
    });
    await service.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal);
    expect(postText).toHaveBeenCalledWith(whepUrl('', 'r'), OFFER, 'application/sdp', expect.anything());
  });

  describe('an offer whose gathering runs on after it has what it needs (a phone just moved to another network)', () => {
    const HOST = 'candidate:1 1 udp 2122260223 10.0.0.3 50000 typ host';
    const RELAY = 'candidate:2 1 udp 41885439 10.0.0.1 50001 typ relay raddr 10.0.0.3 rport 50000';
    const TURN = [{ urls: 'turn:10.0.0.1:3478?transport=udp', username: 'u', credential: 'c' }];
    type Step = { at: number; candidate: string; type: string } | { at: number; turnError: number };
    /** Gathering that follows `steps` (candidates, TURN errors) and never completes. */
    const gathering = (steps: Step[]) =>
      class extends FakePeerConnection {
        override setLocalDescription(desc: RTCSessionDescriptionInit) {
          this.localDescription = { ...desc, sdp: desc.sdp ?? '' };
          for (const step of steps) {
            setTimeout(() => {
              if ('turnError' in step) {
                this.dispatchEvent(Object.assign(new Event('icecandidateerror'), { url: TURN[0]!.urls, errorCode: step.turnError, errorText: 'TURN error' }));
                return;
              }
              this.localDescription = { ...this.localDescription, sdp: `${this.localDescription?.sdp ?? ''}\r\na=${step.candidate}` } as RTCSessionDescriptionInit;
              this.dispatchEvent(Object.assign(new Event('icecandidate'), { candidate: { type: step.type, candidate: step.candidate } }));
            }, step.at);
          }
          return Promise.resolve();
        }
      };
    const connectWith = async (iceServers: RTCIceServer[], steps: Step[]) => {
      const Peer = gathering(steps);
      const postText = vi.fn(() => Promise.resolve({ status: 201, text: 'v=0' }));
      const service = createWhepService({
        http: { postText } as unknown as HttpClient,
        iceServers,
        createPeer: (config) => new Peer(config) as unknown as RTCPeerConnection,
        iceGatheringTimeoutMs: 10_000,
      });
      // A faked clock that moves only from one timer to the next: when the offer goes is read
      // off it exactly, whatever this machine's load.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      try {
        const started = performance.now();
        let done = false;
        const connected = service.connect({ srsLink: '', roomId: 'r' }, new AbortController().signal).finally(() => (done = true));
        while (!done) {
          // What runs between timers first (the async variants yield to the real event loop), then the next timer.
          await vi.advanceTimersByTimeAsync(0);
          if (!done) await vi.advanceTimersToNextTimerAsync();
        }
        await connected;
        return { ms: performance.now() - started, offer: (postText.mock.calls[0] as unknown as [string, string])[1] };
      } finally {
        vi.useRealTimers();
      }
    };
    const hostThenRelay: Step[] = [
      { at: 5, candidate: HOST, type: 'host' },
      { at: 40, candidate: RELAY, type: 'relay' },
    ];

    it('with a TURN server, goes CANDIDATE_SETTLE_MS after the first relay candidate, not at the gathering timeout', async () => {
      const { ms, offer } = await connectWith(TURN, hostThenRelay);
      expect(offer).toMatch(/typ relay/);
      expect(ms).toBe(40 + CANDIDATE_SETTLE_MS);
    });

    it('with a TURN server that refuses the allocation (its quota full), goes with what was gathered', async () => {
      const { ms, offer } = await connectWith(TURN, [
        { at: 5, candidate: HOST, type: 'host' },
        { at: 30, turnError: 486 },
      ]);
      // At the refusal, with what was gathered: no relay candidate will come.
      expect(ms).toBe(30 + CANDIDATE_SETTLE_MS);
      expect(offer).toMatch(/typ host/);
    });

    it('an error of one interface that could not reach the relay (701) does not stop the wait for its candidate', async () => {
      const { offer } = await connectWith(TURN, [
        { at: 5, candidate: HOST, type: 'host' },
        { at: 10, turnError: 701 },
        { at: 200, candidate: RELAY, type: 'relay' },
      ]);
      expect(offer).toMatch(/typ relay/);
    });

    it('without one, goes CANDIDATE_SETTLE_MS after the first candidate', async () => {
      const { ms, offer } = await connectWith([], hostThenRelay);
      expect(offer).toMatch(/typ host/);
      expect(ms).toBe(5 + CANDIDATE_SETTLE_MS);
    });
  });
});
