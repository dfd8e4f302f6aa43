import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** docs/requirements.md R46: the start request plus the media connection must finish within 15 s. */
export const START_TIMEOUT_MS = 15_000;

export type SessionStatus = 'idle' | 'connecting' | 'live' | 'ending';

/** How far a start has got; shown in the connecting hint and recorded in the session log. */
export type ConnectPhase = 'route' | 'startLive' | 'stream' | 'media' | 'video';

export type EndReason =
  | 'user'
  | 'cancelled'
  | 'timeout'
  | 'hidden'
  | 'signalingLost'
  | 'iceError'
  | 'quit'
  | 'reconnectFailed'
  | 'startFailed';

/**
 * resuming: the socket stopped answering while still open (a network that changed under
 * it), and a new one is being opened beside it; nothing is sent until one answers.
 */
export type SignalingState = 'closed' | 'connecting' | 'open' | 'reconnecting' | 'resuming';

/**
 * What made the app doubt its network path: the avatar's media dropped, the browser went
 * online again, or its connection type changed (navigator.connection).
 */
export type NetworkHint = 'media' | 'online' | 'connection';

/**
 * Where a media reconnect stands: `reconnecting` from the drop until a connection plays again
 * (a new one, or the dropped one back by itself); `awaitingVideo` until the avatar's video shows
 * a new frame (the visitor's sign that it moves again). docs/requirements.md R117.
 */
export type MediaRecovery = 'idle' | 'reconnecting' | 'awaitingVideo';

/** Reconnects of this session, one per drop, however many attempts each took (the stats panel shows them). */
export interface Reconnects {
  media: number;
  signaling: number;
}

export interface SessionState {
  status: SessionStatus;
  phase: ConnectPhase | null;
  roomId: string | null;
  signaling: SignalingState;
  /** RTCPeerConnection.connectionState of the avatar's media, or 'none'. */
  media: RTCPeerConnectionState | 'none';
  mediaRecovery: MediaRecovery;
  reconnects: Reconnects;
  /** The avatar video is waiting for a tap because autoplay was refused. */
  needsTapToPlay: boolean;
  endReason: EndReason | null;
}

const initialState: SessionState = {
  status: 'idle',
  phase: null,
  roomId: null,
  signaling: 'closed',
  media: 'none',
  mediaRecovery: 'idle',
  reconnects: { media: 0, signaling: 0 },
  needsTapToPlay: false,
  endReason: null,
};

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    /** The visitor tapped Start chat. */
    startRequested(state) {
      if (state.status !== 'idle') return;
      state.status = 'connecting';
      state.phase = 'route';
      state.endReason = null;
      state.reconnects = { media: 0, signaling: 0 };
    },
    /** The visitor tapped Cancel while connecting. */
    cancelRequested() {},
    /** The visitor tapped End chat (or hung up the session). */
    endRequested() {},
    /**
     * Something other than the visitor ends the session (hidden page, ...). The
     * saga that detects it has already shown whatever the visitor must see.
     */
    endTriggered(_state, _action: PayloadAction<EndReason>) {},
    connectPhaseReached(state, action: PayloadAction<ConnectPhase>) {
      if (state.status === 'connecting') state.phase = action.payload;
    },
    liveStarted(state, action: PayloadAction<{ roomId: string }>) {
      state.roomId = action.payload.roomId;
    },
    signalingStateChanged(state, action: PayloadAction<SignalingState>) {
      // A channel that was open and now reconnects or resumes: one reconnect, however many sockets it takes.
      if (state.signaling === 'open' && (action.payload === 'reconnecting' || action.payload === 'resuming')) state.reconnects.signaling += 1;
      state.signaling = action.payload;
    },
    /** The first asr_ready of the session arrived: the room listens, the greeting was asked for. */
    roomJoined() {},
    /** Something says the network path may have changed (NetworkHint); the channels check theirs. */
    networkChangeSuspected(_state, _action: PayloadAction<NetworkHint>) {},
    /**
     * The signaling channel moved to a new socket after the old one stopped answering (the
     * path changed): what else ran over the old path (the recognizer) moves too.
     */
    signalingResumed() {},
    mediaStateChanged(state, action: PayloadAction<RTCPeerConnectionState | 'none'>) {
      state.media = action.payload;
    },
    /** The avatar's media dropped and is being reconnected (once per drop). */
    mediaReconnectStarted(state) {
      state.reconnects.media += 1;
      state.mediaRecovery = 'reconnecting';
    },
    /** One WHEP attempt of a reconnect goes (`attempt` counts from 1, the ones not counted included). */
    mediaAttemptStarted(_state, _action: PayloadAction<{ attempt: number }>) {},
    /** A connection carries the media again: a new one, or the dropped one back by itself. */
    mediaReconnected(state, _action: PayloadAction<{ how: 'new' | 'back' }>) {
      if (state.mediaRecovery === 'reconnecting') state.mediaRecovery = 'awaitingVideo';
    },
    /** The avatar's video showed a frame while a reconnect waited for one: it moves again. */
    avatarMovedAgain(state) {
      if (state.mediaRecovery === 'awaitingVideo') state.mediaRecovery = 'idle';
    },
    /** The avatar video fired canplay (reported by the video element). */
    videoCanPlay() {},
    /** No canplay within 5 s of the stream arriving: ask the visitor to tap to play. */
    videoWatchdogFired(state) {
      state.needsTapToPlay = true;
    },
    /** play() was refused (autoplay policy): the visitor must tap. */
    videoPlayBlocked(state) {
      state.needsTapToPlay = true;
    },
    /** The avatar video is playing. The session is live from here. */
    videoPlaying(state) {
      state.needsTapToPlay = false;
      if (state.status === 'connecting') {
        state.status = 'live';
        state.phase = null;
      }
    },
    sessionEnding(state, action: PayloadAction<EndReason>) {
      state.status = 'ending';
      state.endReason = action.payload;
    },
    sessionEnded(state) {
      return { ...initialState, endReason: state.endReason };
    },
  },
  selectors: {
    selectSessionStatus: (state) => state.status,
    selectConnectPhase: (state) => state.phase,
    selectRoomId: (state) => state.roomId,
    selectSignalingState: (state) => state.signaling,
    selectMediaState: (state) => state.media,
    selectNeedsTapToPlay: (state) => state.needsTapToPlay,
    selectEndReason: (state) => state.endReason,
    selectMediaRecovery: (state) => state.mediaRecovery,
    selectReconnects: (state) => state.reconnects,
  },
});

export const {
  startRequested,
  cancelRequested,
  endRequested,
  endTriggered,
  connectPhaseReached,
  liveStarted,
  signalingStateChanged,
  roomJoined,
  networkChangeSuspected,
  signalingResumed,
  mediaStateChanged,
  mediaReconnectStarted,
  mediaAttemptStarted,
  mediaReconnected,
  avatarMovedAgain,
  videoCanPlay,
  videoWatchdogFired,
  videoPlayBlocked,
  videoPlaying,
  sessionEnding,
  sessionEnded,
} = sessionSlice.actions;
export const {
  selectSessionStatus,
  selectConnectPhase,
  selectRoomId,
  selectSignalingState,
  selectMediaState,
  selectNeedsTapToPlay,
  selectEndReason,
  selectMediaRecovery,
  selectReconnects,
} = sessionSlice.selectors;

/**
 * The live session is reconnecting: its signaling channel reconnects or resumes, or its media
 * has dropped and the avatar has not moved again yet. The hint over the avatar shows then.
 */
export const selectReconnecting = (state: { session: SessionState }): boolean => {
  const s = state.session;
  if (s.status !== 'live') return false;
  return s.signaling === 'reconnecting' || s.signaling === 'resuming' || s.mediaRecovery !== 'idle';
};
