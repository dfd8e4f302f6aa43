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

export interface VoiceState {
  hold: HoldPhase;
  /** Slid up past the threshold: releasing now cancels. Kept after the release for the saga to read. */
  willCancel: boolean;
  call: CallPhase;
  muted: boolean;
  /** The VAD hears the visitor speak (call mode). */
  hearing: boolean;
  avatar: AvatarActivity;
  /** The reply the avatar state belongs to, so a late nlp_end of an older reply is ignored. */
  replyId: string | null;
  /** The recognizer's current words, shown while the visitor talks. */
  hypothesis: string;
  /** The microphone permission was refused: recording shows as disabled until a start succeeds. */
  micDenied: boolean;
  /** Another app has the page's audio (an iOS phone call, Siri): the call is paused until it comes back. */
  audioTaken: boolean;
}

export const initialVoiceState: VoiceState = {
  hold: 'idle',
  willCancel: false,
  call: 'off',
  muted: false,
  hearing: false,
  avatar: 'idle',
  replyId: null,
  hypothesis: '',
  micDenied: false,
  audioTaken: false,
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
    },
    /** The call could not start (an alert says why); the mode did not change. */
    callStartFailed(state) {
      state.call = 'off';
    },
    muteToggled(state) {
      if (state.call === 'off') return;
      state.muted = !state.muted;
      if (state.muted) state.hearing = false;
    },
    /** The call lost the page's audio to another app: recognition and voice detection stop. */
    callAudioLost(state) {
      if (state.call === 'off') return;
      state.audioTaken = true;
      state.hearing = false;
      state.hypothesis = '';
    },
    /** The audio is back: the call listens again. */
    callAudioBack(state) {
      state.audioTaken = false;
    },
    micAccessGranted(state) {
      state.micDenied = false;
    },
    micAccessFailed(state, action: PayloadAction<MicFailure>) {
      state.micDenied = action.payload === 'denied';
    },
    vadSpeechStarted(state) {
      state.hearing = true;
    },
    vadSpeechEnded(state) {
      state.hearing = false;
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
        state.audioTaken = false;
        state.hearing = false;
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
    selectHearing: (state) => state.hearing,
    selectAvatarActivity: (state) => state.avatar,
    /** The avatar has begun a reply (nlp_ready or nlp_running) that has neither ended nor been interrupted. */
    selectReplyUnderWay: (state) => state.replyId !== null,
    /** The reply the avatar is speaking now (its msg_id), or null. */
    selectSpeakingReply: (state) => (state.avatar === 'speaking' ? state.replyId : null),
    selectHypothesis: (state) => state.hypothesis,
    selectMicDenied: (state) => state.micDenied,
    selectVoiceStatus: (state): VoiceStatus => {
      if (state.hold === 'recording') return 'recording';
      if (state.call !== 'off' && state.audioTaken) return 'paused';
      if (state.call !== 'off' && state.muted) return 'muted';
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
  callAudioLost,
  callAudioBack,
  micAccessGranted,
  micAccessFailed,
  vadSpeechStarted,
  vadSpeechEnded,
  partialRecognized,
  sentenceRecognized,
} = voiceSlice.actions;

type WithVoice = { voice?: VoiceState };
const bound = voiceSlice.getSelectors((root: WithVoice) => root.voice ?? initialVoiceState);
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
