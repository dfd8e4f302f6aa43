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

export interface SessionState {
  status: SessionStatus;
  phase: ConnectPhase | null;
  roomId: string | null;
  signaling: SignalingState;
  /** RTCPeerConnection.connectionState of the avatar's media, or 'none'. */
  media: RTCPeerConnectionState | 'none';
  mediaReconnects: number;
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
  mediaReconnects: 0,
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
      state.mediaReconnects = 0;
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
    mediaReconnectStarted(state) {
      state.mediaReconnects += 1;
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
} = sessionSlice.selectors;
