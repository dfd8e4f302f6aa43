/**
 * Fake services for saga tests: every outside effect is a vi.fn whose calls
 * can be asserted, and every I/O honours its AbortSignal like the real adapters.
 * Sockets and peer connections are driven from the test ("the server side").
 */
import { vi } from 'vitest';
import type { AccountInfo } from '../../features/account/accountSlice.ts';
import type { SagaServices } from '../context.ts';
import type { AccountService } from '../../services/account.ts';
import { createReplayEmitter } from '../../services/emitter.ts';
import { createLivePeerHolder } from '../../services/livePeer.ts';
import type { LiveService } from '../../services/live.ts';
import type { PlatformService } from '../../services/platform.ts';
import { createRemoteMediaHolder } from '../../services/remoteMedia.ts';
import type { SignalingSocket, SocketEvent } from '../../services/socket.ts';
import { createMemoryStorage } from '../../services/storage.ts';
import type { PeerEvent, WhepConnection } from '../../services/whep.ts';
import { createFakeVoice } from '../../features/voice/sagas/testing/fakes.ts';

/** Runs `fn` after the current microtasks, like a network event would. */
const later = (fn: () => void) => void Promise.resolve().then(fn);

/** A promise that never settles on its own and rejects with AbortError when `signal` aborts. */
export function untilAborted<T>(signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
  });
}

export class FakeSocket implements SignalingSocket {
  readonly sent: Record<string, unknown>[] = [];
  closed = false;
  private opened = false;
  private readonly events = createReplayEmitter<SocketEvent>();
  readonly subscribe = this.events.subscribe;

  constructor(readonly url: string) {}

  isOpen = () => this.opened && !this.closed;
  send = vi.fn((text: string) => {
    if (!this.isOpen()) return false;
    const frame = JSON.parse(text) as Record<string, unknown>;
    // Heartbeats are counted apart, so `sent` and types() read as the conversation.
    if (frame.type === 'ping') {
      this.pings += 1;
      if (this.answerPing) this.serverSend({ msg_type: 'pong' });
      return true;
    }
    this.sent.push(frame);
    if (frame.type === 'offer_2' && this.roomGone) this.serverSend({ msg_type: 'error', text: 'offer_2: unknown room' });
    else if (frame.type === 'offer_2' && this.answerOffer) this.serverSend(this.asrReady);
    return true;
  });
  close = vi.fn(() => {
    this.closed = true;
    this.opened = false;
  });

  /** Answer offer_2 with asr_ready, like the stand-in. */
  answerOffer = true;
  /** Answer ping with pong, like the stand-in (PROTOCOL.md, *Heartbeat*); false: a server without heartbeats, or a dead path. */
  answerPing = true;
  /** Pings the client sent on this socket (not in `sent`). */
  pings = 0;
  /** The frame that carries asr_ready: the stand-in's shape unless a test sets another. */
  asrReady: Record<string, unknown> = { msg_type: 'command', command: 'asr_ready' };
  /** Answer offer_2 with the stand-in's error for a room that no longer exists. */
  roomGone = false;

  serverOpen(): void {
    this.opened = true;
    this.events.emit({ type: 'open' });
  }
  serverSend(frame: unknown): void {
    later(() => this.events.emit({ type: 'message', data: typeof frame === 'string' ? frame : JSON.stringify(frame) }));
  }
  serverClose(code = 1006): void {
    this.opened = false;
    this.events.emit({ type: 'close', code, reason: '' });
  }
  refuse(): void {
    this.events.emit({ type: 'error' });
    this.events.emit({ type: 'close', code: 1006, reason: '' });
  }
  types(): unknown[] {
    return this.sent.map((f) => f.type);
  }
}

export class FakePeer implements WhepConnection {
  readonly stream: MediaStream;
  state: RTCPeerConnectionState = 'new';
  private readonly events = createReplayEmitter<PeerEvent>();
  readonly subscribe = this.events.subscribe;
  close = vi.fn(() => {
    this.state = 'closed';
  });
  /** Video frames the fake receiver reports (0: nothing has arrived, as from a media server that sends nothing). */
  framesReceived = 25;
  getStats = vi.fn(() =>
    Promise.resolve(new Map([['in-v', { type: 'inbound-rtp', kind: 'video', framesReceived: this.framesReceived }]]) as unknown as RTCStatsReport),
  );

  /** Whether media arrives on it (false: the path went silent while the state says connected). */
  flowing = true;
  private mark = 0;
  mediaMark = vi.fn(() => {
    if (this.flowing && this.framesReceived > 0) this.mark += 1;
    return Promise.resolve(this.mark === 0 ? null : this.mark);
  });

  constructor(readonly index: number) {
    this.stream = { id: `stream-${index}` } as unknown as MediaStream;
  }
  connectionState = () => this.state;
  emitState(state: RTCPeerConnectionState): void {
    this.state = state;
    this.events.emit({ type: 'connectionState', state });
  }
  emitIceError(): void {
    this.events.emit({ type: 'iceCandidateError', errorCode: 701, errorText: 'STUN host lookup received error.' });
  }
}

export type SocketBehaviour = 'join' | 'refuse' | 'silent' | 'gone';
/**
 * 'hang': the WHEP connect itself never settles until its signal aborts (a relay or media server that does not answer).
 * 'noMedia': connects, and no video frame ever arrives (SRS's 201 for a stream nobody publishes).
 */
export type PeerBehaviour = 'connect' | 'silent' | 'fail' | 'hang' | 'noMedia' | 'unreachable';

export interface FakeOptions {
  path?: string;
  hiddenGraceMs?: number;
  storage?: Record<string, string>;
  languages?: string[];
  /** The frame each socket answers offer_2 with (the stand-in's `msg_type: "command"` shape by default). */
  asrReady?: Record<string, unknown>;
}

export const DEMO_INFO: AccountInfo = {
  photoUrl: 'http://127.0.0.1/photo.png',
  title: 'Demo',
  label: null,
  background: null,
  asr: { appKey: 'k', region: 'r' },
};

/** Screen wake locks handed out by the fake platform: held until released by the app or `drop()` (the browser, on hiding). */
export function createFakeWakeLocks() {
  const all: { released: boolean; release(): Promise<void> }[] = [];
  return {
    all,
    create() {
      const lock = {
        released: false,
        release: vi.fn(() => {
          lock.released = true;
          return Promise.resolve();
        }),
      };
      all.push(lock);
      return lock;
    },
    /** Locks the app holds now. */
    held: () => all.filter((l) => !l.released).length,
    /** What the browser does when the page is hidden. */
    drop: () => all.forEach((l) => (l.released = true)),
  };
}

export function createFakes(options: FakeOptions = {}) {
  const sockets: FakeSocket[] = [];
  const peers: FakePeer[] = [];
  const signals: Record<string, AbortSignal[]> = { route: [], startLive: [], streams: [], whep: [], whepPrepare: [] };
  const visibility = new Set<(hidden: boolean) => void>();
  const network = new Set<(hint: 'online' | 'connection') => void>();
  /** What each next socket / peer does; the last entry repeats. */
  const plan = {
    sockets: ['join'] as SocketBehaviour[],
    peers: ['connect'] as PeerBehaviour[],
    /** Whether new sockets answer pings (false: a back end without the heartbeat extension). */
    pongs: true,
  };
  const next = <T>(list: T[]): T => (list.length > 1 ? (list.shift() as T) : (list[0] as T));

  const live = {
    getRoute: vi.fn<LiveService['getRoute']>((_params, signal) => {
      if (signal) signals.route?.push(signal);
      return Promise.resolve({ websockLink: 'ws://127.0.0.1/ws/signaling', srsLink: 'http://127.0.0.1' });
    }),
    startLive: vi.fn<LiveService['startLive']>((_params, signal) => {
      if (signal) signals.startLive?.push(signal);
      return Promise.resolve({ roomId: 'room-1', systemType: null });
    }),
    stopLive: vi.fn<LiveService['stopLive']>(() => Promise.resolve(true)),
  };

  const streams = {
    isStreamActive: vi.fn((_target: { srsLink: string; roomId: string }, signal?: AbortSignal) => {
      if (signal) signals.streams?.push(signal);
      return Promise.resolve(true);
    }),
  };

  const whep = {
    isSupported: vi.fn(() => true),
    prepare: vi.fn((signal: AbortSignal, _iceServers?: RTCIceServer[]) => {
      signals.whepPrepare?.push(signal);
    }),
    connect: vi.fn((_target: { srsLink: string; roomId: string; iceServers?: RTCIceServer[] }, signal: AbortSignal): Promise<WhepConnection> => {
      signals.whep?.push(signal);
      const behaviour = next(plan.peers);
      if (behaviour === 'fail') return Promise.reject(new Error('WHEP answer rejected (HTTP 500)'));
      // The network is down: not a candidate could be gathered (as services/whep.ts says it).
      if (behaviour === 'unreachable') return Promise.reject(Object.assign(new Error('no ICE candidate was gathered (policy relay)'), { name: 'WhepError', kind: 'ice' }));
      if (behaviour === 'hang') {
        return new Promise((_resolve, reject) => {
          const stop = () => reject(new DOMException('WHEP connect aborted', 'AbortError'));
          if (signal.aborted) stop();
          else signal.addEventListener('abort', stop, { once: true });
        });
      }
      const peer = new FakePeer(peers.length);
      peers.push(peer);
      if (behaviour === 'noMedia') peer.framesReceived = 0;
      if (behaviour === 'connect' || behaviour === 'noMedia') later(() => peer.emitState('connected'));
      return Promise.resolve(peer);
    }),
  };

  const socket = {
    connect: vi.fn((url: string) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      const behaviour = next(plan.sockets);
      if (behaviour === 'gone') s.roomGone = true;
      s.answerPing = plan.pongs;
      if (options.asrReady) s.asrReady = options.asrReady;
      if (behaviour === 'join' || behaviour === 'gone') later(() => s.serverOpen());
      if (behaviour === 'refuse') later(() => s.refuse());
      return s;
    }),
  };

  const wakeLocks = createFakeWakeLocks();
  const platform = {
    location: vi.fn(() => ({ pathname: options.path ?? '/25d/demo', search: '', hash: '' })),
    languages: vi.fn(() => options.languages ?? ['en-US']),
    randomUUID: vi.fn(() => '123e4567-e89b-12d3-a456-426614174000'),
    hiddenGraceMs: vi.fn(() => options.hiddenGraceMs ?? 0),
    isHidden: vi.fn(() => false),
    onVisibilityChange: vi.fn((listener: (hidden: boolean) => void) => {
      visibility.add(listener);
      return () => visibility.delete(listener);
    }),
    onNetworkChange: vi.fn((listener: (hint: 'online' | 'connection') => void) => {
      network.add(listener);
      return () => network.delete(listener);
    }),
    setLeaveGuard: vi.fn<PlatformService['setLeaveGuard']>(),
    afterNextPaint: vi.fn<PlatformService['afterNextPaint']>(() => Promise.resolve()),
    whenIdle: vi.fn<PlatformService['whenIdle']>(() => Promise.resolve()),
    requestScreenWakeLock: vi.fn<PlatformService['requestScreenWakeLock']>(() => Promise.resolve(wakeLocks.create())),
  };

  const account = {
    fetchUserInfo: vi.fn<AccountService['fetchUserInfo']>((uid) =>
      Promise.resolve({ valid: true, raw: { uid, a: 1, b: 2 }, info: DEMO_INFO }),
    ),
  };

  const livePeer = createLivePeerHolder();
  const storage = createMemoryStorage(options.storage);
  const voice = createFakeVoice();
  const services: SagaServices = {
    account,
    live,
    streams,
    whep,
    socket,
    storage,
    platform,
    remoteMedia: createRemoteMediaHolder(),
    livePeer,
    statsSource: livePeer,
    voice: voice.service,
  };

  return {
    services,
    live,
    streams,
    whep,
    socket,
    platform,
    wakeLocks,
    account,
    storage,
    sockets,
    peers,
    signals,
    plan,
    voice,
    setHidden(hidden: boolean) {
      for (const listener of visibility) listener(hidden);
    },
    /** The browser says its network changed. */
    networkChanged(hint: 'online' | 'connection') {
      for (const listener of network) listener(hint);
    },
    /** Listeners on the browser's network events (0 once the session has ended). */
    networkListeners: () => network.size,
  };
}

export type Fakes = ReturnType<typeof createFakes>;
