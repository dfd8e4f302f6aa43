/**
 * Voice input as the UI sees it: the hold-to-talk gesture, the hands-free call, what
 * the avatar is doing (for the voice state texts of docs/requirements.md R33) and the words the
 * recognizer has heard so far. Only serializable facts: the microphone, the worklet,
 * the VAD worker and the recognizer live in the voice sagas.
 */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { callEntered, callLeft } from '../input/inputSlice.ts';
import { sessionEnded } from '../session/sessionSlice.ts';
import { messageReceived, sendFailed, sendRequested } from '../signaling/signalingActions.ts';

/** recording: the hold-to-talk button is held down. */
export type HoldPhase = 'idle' | 'recording';
/** entering: Start call tapped, the microphone is being opened. */
export type CallPhase = 'off' | 'entering' | 'active';
export type AvatarActivity = 'idle' | 'thinking' | 'speaking';
/**
 * The voice state texts of the spec: listening, speaking, thinking, muted, recording; and
 * paused, while another app has the page's audio in a call.
 */
export type VoiceStatus = 'listening' | 'speaking' | 'thinking' | 'muted' | 'recording' | 'paused';
/** Why the microphone could not be opened (features/voice/services/pipeline.ts MicErrorKind). */
export type MicFailure = 'denied' | 'unavailable' | 'permission' | 'failed';

/**
 * What the voice status line shows of a running call, derived from the call's state machine
 * (sagas/callState.ts `callView`) and put by the saga whenever it changes.
 */
export interface CallView {
  /** Another app has the page's audio (an iOS phone call, Siri): the call is paused until it comes back. */
  readonly paused: boolean;
  /** The call's microphone is muted (the machine has carried out the visitor's Mute). */
  readonly muted: boolean;
  /** The visitor is heard speaking: voice detection (or the recognizer standing in for it) is in a sentence. */
  readonly hearing: boolean;
}

export interface VoiceState {
  hold: HoldPhase;
  /** Slid up past the threshold: releasing now cancels. Kept after the release for the saga to read. */
  willCancel: boolean;
  call: CallPhase;
  muted: boolean;
  /** The running call as its machine last said (null: no call, or not started yet). */
  callView: CallView | null;
  avatar: AvatarActivity;
  /** The reply the avatar state belongs to, so a late nlp_end of an older reply is ignored. */
  replyId: string | null;
  /** The recognizer's current words, shown while the visitor talks. */
  hypothesis: string;
  /** The microphone permission was refused: recording shows as disabled until a start succeeds. */
  micDenied: boolean;
}

export const initialVoiceState: VoiceState = {
  hold: 'idle',
  willCancel: false,
  call: 'off',
  muted: false,
  callView: null,
  avatar: 'idle',
  replyId: null,
  hypothesis: '',
  micDenied: false,
};

/** Sliding up this far from where the press began cancels (docs/requirements.md R21). */
export const SLIDE_CANCEL_PX = 15;

export const voiceSlice = createSlice({
  name: 'voice',
  initialState: initialVoiceState,
  reducers: {
    /** The hold-to-talk button went down (pointer or Space/Enter); the saga decides whether it counts. */
    holdPressed() {},
    /** The pointer crossed the slide-up threshold, either way. */
    holdSlid(state, action: PayloadAction<boolean>) {
      if (state.hold === 'recording') state.willCancel = action.payload;
    },
    holdReleased(state) {
      state.hold = 'idle';
    },
    /** The gesture was taken away (pointercancel, Escape): like releasing after sliding up. */
    holdAborted(state) {
      if (state.hold !== 'recording') return;
      state.hold = 'idle';
      state.willCancel = true;
    },
    /** A press was accepted: recording (audio is held until the recognizer is ready). */
    holdStarted(state) {
      state.hold = 'recording';
      state.willCancel = false;
      state.hypothesis = '';
    },
    holdEnded(state) {
      state.hold = 'idle';
      state.willCancel = false;
      state.hypothesis = '';
    },
    /** Start call passed the speech-config check; the microphone is being opened. */
    callStarting(state) {
      state.call = 'entering';
      state.muted = false;
      state.callView = null;
    },
    /** The call could not start (an alert says why); the mode did not change. */
    callStartFailed(state) {
      state.call = 'off';
    },
    /** The visitor's Mute or Unmute; the call's machine carries it out and says so in callView. */
    muteToggled(state) {
      if (state.call === 'off') return;
      state.muted = !state.muted;
    },
    /** The call's machine moved (sagas/conversation.ts): what the status line shows of it. */
    callMoved(state, action: PayloadAction<CallView>) {
      if (state.call === 'off') return;
      // Paused, recognition stops: the words heard so far are not going anywhere.
      if (action.payload.paused && !state.callView?.paused) state.hypothesis = '';
      state.callView = action.payload;
    },
    micAccessGranted(state) {
      state.micDenied = false;
    },
    micAccessFailed(state, action: PayloadAction<MicFailure>) {
      state.micDenied = action.payload === 'denied';
    },
    /** Words not final yet, for display (and sent as asrcallback partials). */
    /**
     * Words heard so far. In a call they also go to the server as they come; while a
     * button is held they stay on the device, since sliding up may still cancel them.
     */
    partialRecognized(state, action: PayloadAction<{ msgId: string; text: string; mode: 'call' | 'hold' }>) {
      state.hypothesis = action.payload.text;
    },
    /** A voice sentence is complete: the voice turn sends it as the visitor's message. */
    sentenceRecognized(state, _action: PayloadAction<{ msgId: string; text: string }>) {
      state.hypothesis = '';
      state.avatar = 'thinking';
      state.replyId = null;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(callEntered, (state) => {
        state.call = 'active';
      })
      .addCase(callLeft, (state) => {
        state.call = 'off';
        state.muted = false;
        state.callView = null;
        state.hypothesis = '';
      })
      .addCase(sendRequested, (state, action) => {
        // Interrupting stops the avatar at once (PROTOCOL.md: break).
        if (action.payload.type !== 'break') return;
        state.avatar = 'idle';
        state.replyId = null;
      })
      .addCase(sendFailed, (state) => {
        if (state.avatar === 'thinking' && state.replyId === null) state.avatar = 'idle';
      })
      .addCase(messageReceived, (state, action) => {
        const frame = action.payload;
        if (frame.msg_type !== 'command' || frame.msg_id === undefined) return;
        if (frame.command === 'nlp_ready') {
          state.avatar = 'thinking';
          state.replyId = frame.msg_id;
        } else if (frame.command === 'nlp_running') {
          state.avatar = 'speaking';
          state.replyId = frame.msg_id;
        } else if (frame.command === 'nlp_end' && frame.msg_id === state.replyId) {
          state.avatar = 'idle';
          state.replyId = null;
        }
      })
      // The permission outlives the session; everything else starts over.
      .addCase(sessionEnded, (state) => ({ ...initialVoiceState, micDenied: state.micDenied }));
  },
  selectors: {
    selectHoldPhase: (state) => state.hold,
    selectWillCancel: (state) => state.willCancel,
    selectCallPhase: (state) => state.call,
    selectMuted: (state) => state.muted,
    selectHearing: (state) => state.call !== 'off' && state.callView?.hearing === true,
    selectAvatarActivity: (state) => state.avatar,
    /** The avatar has begun a reply (nlp_ready or nlp_running) that has neither ended nor been interrupted. */
    selectReplyUnderWay: (state) => state.replyId !== null,
    /** The reply the avatar is speaking now (its msg_id), or null. */
    selectSpeakingReply: (state) => (state.avatar === 'speaking' ? state.replyId : null),
    selectHypothesis: (state) => state.hypothesis,
    selectMicDenied: (state) => state.micDenied,
    selectVoiceStatus: (state): VoiceStatus => {
      if (state.hold === 'recording') return 'recording';
      // A running call: what its machine says (before it runs, Start call just tapped, the Mute button).
      const view = state.call !== 'off' ? state.callView : null;
      if (view?.paused) return 'paused';
      if (view ? view.muted : state.call !== 'off' && state.muted) return 'muted';
      if (state.avatar === 'speaking') return 'speaking';
      if (state.avatar === 'thinking') return 'thinking';
      return 'listening';
    },
  },
});

export const {
  holdPressed,
  holdSlid,
  holdReleased,
  holdAborted,
  holdStarted,
  holdEnded,
  callStarting,
  callStartFailed,
  muteToggled,
  callMoved,
  micAccessGranted,
  micAccessFailed,
  partialRecognized,
  sentenceRecognized,
} = voiceSlice.actions;

type WithVoice = { voice?: VoiceState };
/** The whole slice (the call's machine reads the avatar's activity and reply from it). */
export const selectVoice = (root: WithVoice): VoiceState => root.voice ?? initialVoiceState;
const bound = voiceSlice.getSelectors(selectVoice);
export const {
  selectHoldPhase,
  selectWillCancel,
  selectCallPhase,
  selectMuted,
  selectHearing,
  selectAvatarActivity,
  selectReplyUnderWay,
  selectSpeakingReply,
  selectHypothesis,
  selectMicDenied,
  selectVoiceStatus,
} = bound;
