/**
 * A hands-free call's regions (callState.ts names their states; README's table says what
 * each means): for each state, the events that leave it or act in it, as statechart config
 * (statechart.ts). Guards read the state before the event; actions take the value
 * callStep.ts threads through and return the next. Regions are listed in the order their
 * actions run, so an event's effects come out in that order.
 */
import { catalogue } from '../../notices/messages.ts';
import { avatarEcho, echoMayCome, wordsOf } from '../echo.ts';
import { REPLAY_KEEP_MS } from '../pcmFeed.ts';
import { waitFrom } from '../sentences.ts';
import { NO_AUDIO_MS, noAudioNotice, recognitionFailureNotice } from './resources.ts';
import {
  CALL_START_SILENCE_MS,
  CATCH_UP_BACKLOG_CHUNKS,
  LANG_CHANGE_SILENCE_MS,
  RECOGNIZER_CATCH_UP_MS,
  RECOGNIZER_RESTART_DELAYS_MS,
  sentenceStateOf,
  type CallEvent,
  type CallRegions,
  type InternalEvent,
} from './callState.ts';
import { avatarVoice, change, doing, ending, flush, logged, raise, sentence, type Moving } from './callStep.ts';
import type { On, Region, Transition } from './statechart.ts';

export type Event = CallEvent | InternalEvent;
type Of<K extends Event['type']> = Extract<Event, { type: K }>;
type Act<K extends Event['type']> = (m: Moving, e: Of<K>) => Moving;

function region<K extends keyof CallRegions>(name: K, states: Region<Moving, Event, CallRegions[K]>['states']): Region<Moving, Event, CallRegions[K]> {
  return {
    states,
    get: (m) => m.s.regions[name],
    set: (m, state) => change(m, { regions: { ...m.s.regions, [name]: state } }),
  };
}

/** The same transitions in every state of a region. */
function everywhere<S extends string>(states: readonly S[], on: On<Moving, Event, S>) {
  return Object.fromEntries(states.map((s) => [s, { on }])) as { [K in S]: { on: On<Moving, Event, S> } };
}

// Guards, on the state before the event.
const notPaused = (m: Moving) => m.s.regions.audio !== 'paused';
const paused = (m: Moving) => m.s.regions.audio === 'paused';
const restartLeft = (m: Moving) => RECOGNIZER_RESTART_DELAYS_MS[m.s.recognizer.restarts] !== undefined;
const newLang = (m: Moving, e: Of<'langChosen'>) => e.lang !== m.s.lang;

// ---- audio: live, muted, paused -------------------------------------------------------

/** NO_AUDIO_MS from now, unless the microphone has given audio or is muted on purpose. */
const armAudioCheck = (m: Moving, muted: boolean, received: number) => change(m, { audioCheckAt: muted || received > 0 ? null : m.env.now + NO_AUDIO_MS });

const muteToggled: Transition<Moving, Of<'muteToggled'>, CallRegions['audio']> = {
  target: (_m, e) => (e.muted ? 'muted' : 'live'),
  actions: [
    // Muted, the microphone gives nothing on purpose; unmuted, it has NO_AUDIO_MS again.
    (m, e) => armAudioCheck(doing(m, { type: 'pauseFeed', paused: e.muted }), e.muted, e.received),
    (m, e) => doing(m, { type: 'muteDetector', muted: e.muted, why: 'mute' }),
  ],
};
const audioLost: Transition<Moving, Of<'audioLost'>, CallRegions['audio']> = {
  target: 'paused',
  actions: [
    (m, e) => logged(m, 'warn', 'another app took the audio: the call pauses', { state: e.state }),
    (m) => doing(change(m, { audioCheckAt: null }), { type: 'pauseFeed', paused: true }, { type: 'muteDetector', muted: true, why: 'pause' }),
  ],
};
const audioCheckDue = { actions: [(m: Moving) => change(m, { audioCheckAt: null })] };

const audio = region('audio', {
  live: { on: { muteToggled, audioLost, audioCheckDue } },
  muted: { on: { muteToggled, audioLost, audioCheckDue } },
  paused: {
    on: {
      audioBack: {
        target: (_m, e) => (e.muted ? 'muted' : 'live'),
        actions: [
          (m, e) => logged(m, 'info', 'the audio is back: the call listens again', { muted: e.muted }),
          (m, e) => armAudioCheck(m, e.muted, e.received),
          (m, e) => doing(m, { type: 'pauseFeed', paused: e.muted }, { type: 'muteDetector', muted: e.muted, why: 'resume' }, { type: 'resumeAvatarVoice' }),
        ],
      },
    },
  },
});

// ---- recognizer: connecting, connected, closed, restartDue, restartDueConnecting ------

type RecognizerState = CallRegions['recognizer'];

/** A new recognizer opens (its lang the call's, unless the event brings a new one). */
function open(silenceMs: number, replayFrom?: (m: Moving, e: Event) => number): Act<Event['type']> {
  return (m, e) => {
    const lang = e.type === 'langChosen' ? e.lang : m.s.lang;
    const replayFromMs = replayFrom?.(m, e);
    const moved = change(m, { recognizer: { ...m.s.recognizer, restartAt: null } });
    return doing(moved, replayFromMs === undefined ? { type: 'openRecognizer', lang, silenceMs } : { type: 'openRecognizer', lang, silenceMs, replayFromMs });
  };
}
/** A failed recognizer opens again after its wait (an open still in flight stays pending until the restart replaces it). */
const scheduleRestart: Act<Event['type']> = (m) => {
  const { restarts } = m.s.recognizer;
  return change(m, { recognizer: { ...m.s.recognizer, restarts: restarts + 1, restartAt: m.env.now + RECOGNIZER_RESTART_DELAYS_MS[restarts]! } });
};
const logFailed: Act<'recognizerFailed'> = (m, e) =>
  logged(m, 'warn', 'recognition failed during the call', { details: e.details, connectionLost: e.connectionLost, restarts: m.s.recognizer.restarts });
const logNotStarted: Act<'recognizerSettled'> = (m, e) =>
  logged(m, 'warn', 'recognition could not start', { error: e.ok ? '' : e.error, restarts: m.s.recognizer.restarts });
const connected: Act<'recognizerSettled'> = (m, e) => {
  const caughtUp = e.ok && e.backlog >= CATCH_UP_BACKLOG_CHUNKS ? { catchUpUntil: m.env.now + RECOGNIZER_CATCH_UP_MS } : {};
  return change(m, { recognizer: { ...m.s.recognizer, worked: true, ...caughtUp } });
};

/** Leaving any recognizer state: a new language or network opens a new recognizer at once (replacing a restart's wait); a pause closes it. */
const recognizerOn = (failed: RecognizerState, settled: RecognizerState): On<Moving, Event, RecognizerState> => ({
  recognized: {
    // A phrase recognized: the service works, and the failures in a row start again from none.
    actions: [(m, e) => change(m, { recognizer: { ...m.s.recognizer, restarts: 0, answeredToMs: Math.max(m.s.recognizer.answeredToMs, e.receivedMs - LANG_CHANGE_SILENCE_MS) } })],
  },
  recognizerFailed: [{ guard: restartLeft, target: failed, actions: [logFailed, scheduleRestart] }, { target: 'closed', actions: [logFailed] }],
  recognizerSettled: [
    { guard: (_m, e) => e.ok, target: settled, actions: [connected] },
    // The call's first recognizer: its settings (the call ends). A later one met the network: it restarts.
    { guard: (m) => m.s.recognizer.worked && restartLeft(m), target: 'restartDue', actions: [logNotStarted, scheduleRestart] },
    { target: 'closed', actions: [logNotStarted] },
  ],
  // Paused, the new language waits for the audio to come back, with the call-start silence.
  langChosen: { guard: (m, e) => newLang(m, e) && notPaused(m), target: 'connecting', actions: [open(LANG_CHANGE_SILENCE_MS)] },
  networkChanged: {
    // The recognizer's socket ran over the old path too: a new one hears again what the old
    // one had not answered (from its last final phrase, REPLAY_KEEP_MS at most).
    guard: notPaused,
    target: 'connecting',
    actions: [
      (m, e) => logged(m, 'info', 'the network changed: a new recognizer hears the call', { replayMs: Math.round(e.receivedMs - replayFrom(m, e)) }),
      open(CALL_START_SILENCE_MS, (m, e) => replayFrom(m, e as Of<'networkChanged'>)),
    ],
  },
  audioLost: { guard: notPaused, target: 'closed', actions: [(m) => doing(change(m, { recognizer: { ...m.s.recognizer, restartAt: null } }), { type: 'closeRecognizer' })] },
  audioBack: { guard: paused, target: 'connecting', actions: [open(CALL_START_SILENCE_MS)] },
});
const replayFrom = (m: Moving, e: Of<'networkChanged'>) => Math.max(m.s.recognizer.answeredToMs, e.receivedMs - REPLAY_KEEP_MS);

const recognizer = region('recognizer', {
  connecting: { on: recognizerOn('restartDueConnecting', 'connected') },
  connected: { on: recognizerOn('restartDue', 'connected') },
  closed: { on: recognizerOn('restartDue', 'connected') },
  restartDue: { on: { ...recognizerOn('restartDue', 'restartDue'), restartDue: { target: 'connecting', actions: [open(CALL_START_SILENCE_MS)] } } },
  restartDueConnecting: {
    on: { ...recognizerOn('restartDueConnecting', 'restartDue'), restartDue: { target: 'connecting', actions: [open(CALL_START_SILENCE_MS)] } },
  },
});

// ---- detector: loading, on, off ---------------------------------------------------------

const detector = region('detector', {
  loading: {
    on: {
      detectorSettled: [
        {
          guard: (_m, e) => e.joined,
          target: 'on',
          actions: [(m, e) => logged(change(m, { detector: { ...m.s.detector, fromMs: e.receivedMs } }), 'info', 'voice detection hears the call; it marks the sentences from now on')],
        },
        { target: 'off', actions: [(m) => logged(m, 'warn', 'voice detection will not join the call')] },
      ],
    },
  },
  on: { on: {} },
  off: { on: {} },
});

// ---- sentence: listening, open, waiting, openWhileWaiting --------------------------------

/**
 * Whether the recognizer marks this phrase rather than voice detection: while the detector
 * loads, for a sentence the recognizer opened, and for a phrase spoken before the detector
 * began to hear the call (a recognizer running behind can finish one long after).
 */
function recognizerMarks(m: Moving, atMs: number | undefined): [boolean, Moving] {
  const { sentences, detector: d } = m.s;
  const mine = d.byRecognizer;
  const stale = mine !== null && sentences.open?.msgId !== mine && sentences.closing?.msgId !== mine;
  const after = stale ? change(m, { detector: { ...d, byRecognizer: null } }) : m;
  const beforeDetector = atMs !== undefined && d.fromMs !== null && atMs < d.fromMs;
  return [after.s.regions.detector === 'loading' || after.s.detector.byRecognizer !== null || beforeDetector, after];
}

/**
 * The recognizer marks the sentences (the detector hand-over, D5): its first words start one,
 * interrupting the avatar, and its final phrase ends it. Over the avatar's voice (and for
 * ECHO_TAIL_MS after) only a final phrase that is not the avatar's echo (echo.ts) starts one.
 */
function markByRecognizer(m: Moving, e: Of<'recognizing' | 'recognized'>): Moving {
  const { open: opened, closing } = m.s.sentences;
  let moved = m;
  if (!opened && !closing) {
    const { now } = m.env;
    if (e.type === 'recognizing' && echoMayCome(avatarVoice(m.s), now)) return m;
    if (e.type === 'recognized' && avatarEcho('handOver', e.text, now, avatarVoice(m.s), m.env.avatarSaid) !== null) {
      return logged(m, 'info', 'a phrase heard before voice detection was ready repeats the avatar: dropped as echo', { words: wordsOf(e.text).length });
    }
    const msgId = m.env.newId();
    moved = raise(sentence(change(m, { detector: { ...m.s.detector, byRecognizer: msgId } }), { type: 'speechStart', msgId }), { type: 'marked', mark: 'start' });
  }
  moved = sentence(moved, { type: e.type, text: e.text });
  const mine = moved.s.detector.byRecognizer;
  if (e.type === 'recognized' && mine !== null && moved.s.sentences.open?.msgId === mine) {
    moved = change(moved, { detector: { ...moved.s.detector, byRecognizer: null } });
    moved = raise(sentence(moved, { type: 'speechEnd' }), { type: 'marked', mark: 'end' });
  }
  return moved;
}

const words: Act<'recognizing' | 'recognized'> = (m, e) => {
  const [marks, after] = recognizerMarks(m, e.atMs);
  if (marks) return markByRecognizer(after, e);
  // A misfire's words are the visitor's unless they repeat the avatar (its echo set the misfire off).
  const { open: opened, closing } = after.s.sentences;
  if (e.type === 'recognized' && !opened && closing?.misfired && avatarEcho('handOver', e.text, after.env.now, avatarVoice(after.s), after.env.avatarSaid) !== null) {
    return logged(after, 'info', 'a phrase after a misfire repeats the avatar: dropped as echo', { words: wordsOf(e.text).length });
  }
  return sentence(after, { type: e.type, text: e.text });
};

type SentenceState = CallRegions['sentence'];
const nextSentence = (m: Moving): SentenceState => sentenceStateOf(m.s.sentences);
function stepped<E>(actions: readonly ((m: Moving, e: E) => Moving)[], guard?: (m: Moving, e: E) => boolean): Transition<Moving, E, SentenceState> {
  return guard ? { guard, target: nextSentence, actions } : { target: nextSentence, actions };
}

// Every sentence state answers the same events; sentences.ts decides where each goes, and
// the region's state is named from what it then holds (callState.ts sentenceStateOf).
const sentenceRegion = region(
  'sentence',
  everywhere<SentenceState>(['listening', 'open', 'waiting', 'openWhileWaiting'], {
    // Paused, a detection still on its way from before the pause is not the visitor.
    speechStart: stepped([(m: Moving) => sentence(m, { type: 'speechStart', msgId: m.env.newId() })], notPaused),
    speechEnd: stepped([(m: Moving) => sentence(m, { type: 'speechEnd' })], notPaused),
    misfire: stepped([(m: Moving) => sentence(m, { type: 'misfire' })], notPaused),
    recognizing: stepped([words]),
    recognized: stepped([words]),
    tick: stepped([(m: Moving) => sentence(m, { type: 'tick' })]),
    recognizerFailed: stepped([flush]),
    recognizerSettled: [
      { guard: (_m, e) => !e.ok, target: nextSentence, actions: [flush] },
      // Connected with a backlog: the waiting sentence waits for the catch-up too (D6).
      { guard: (_m, e) => e.ok && e.backlog >= CATCH_UP_BACKLOG_CHUNKS, actions: [(m) => change(m, { sentences: waitFrom(m.s.sentences, m.env.now, RECOGNIZER_CATCH_UP_MS) })] },
    ],
    muteToggled: stepped([flush], (m: Moving, e: Of<'muteToggled'>) => notPaused(m) && e.muted),
    audioLost: stepped([flush], notPaused),
    // What is complete goes in the language it was said in; then the new language.
    langChosen: stepped([flush, (m: Moving, e: Of<'langChosen'>) => change(m, { lang: e.lang })], newLang),
  }),
);

// ---- speech: quiet, heard ----------------------------------------------------------------

const speech = region('speech', {
  quiet: {
    on: {
      speechStart: { guard: notPaused, target: 'heard' },
      marked: { guard: (_m, e) => e.mark === 'start', target: 'heard' },
    },
  },
  heard: {
    on: {
      speechEnd: { guard: notPaused, target: 'quiet' },
      misfire: { guard: notPaused, target: 'quiet' },
      muteToggled: { guard: (m, e) => notPaused(m) && e.muted, target: 'quiet' },
      audioLost: { guard: notPaused, target: 'quiet' },
      marked: { guard: (_m, e) => e.mark === 'end', target: 'quiet' },
    },
  },
});

// ---- avatar: silent, speaking ------------------------------------------------------------

/** Sets the threshold the avatar's voice calls for: raised while it speaks with no echo gate to keep its echo out. */
function threshold(m: Moving, speaking: boolean): Moving {
  const raise = !m.s.avatar.gated && speaking;
  if (raise === m.s.avatar.raised) return m;
  return doing(change(m, { avatar: { ...m.s.avatar, raised: raise } }), { type: 'threshold', raised: raise });
}
const gateMoved: Transition<Moving, Of<'gateMoved'>, CallRegions['avatar']> = {
  actions: [
    (m, e) => logged(m, 'info', "the echo gate follows the avatar's new stream", { gated: e.gated, was: m.s.avatar.gated }),
    (m, e) => threshold(change(m, { avatar: { ...m.s.avatar, gated: e.gated } }), e.speaking),
  ],
};
const looked = (fromSpeaking: boolean): Transition<Moving, Of<'looked'>, CallRegions['avatar']> => ({
  target: (_m, e) => (e.speaking ? 'speaking' : 'silent'),
  // With the echo gate the VAD keeps its normal threshold: a raised one would only make the visitor harder to hear.
  actions: [(m, e) => threshold(fromSpeaking ? change(m, { avatar: { ...m.s.avatar, spokeAt: m.env.now } }) : m, e.speaking)],
});

const avatar = region('avatar', {
  silent: { on: { looked: looked(false), gateMoved } },
  speaking: { on: { looked: looked(true), gateMoved } },
});

// ---- avatarVoice: heard, held --------------------------------------------------------------

const heardAgain = { target: 'heard' as const, actions: [(m: Moving) => doing(m, { type: 'holdAvatar', held: false })] };
const avatarVoiceRegion = region('avatarVoice', {
  // The visitor's onset over a speaking avatar: its voice is held in the page at once (its echo would garble the visitor's words).
  heard: { on: { interrupted: { guard: (m) => m.voice.avatar === 'speaking', target: 'held', actions: [(m) => doing(m, { type: 'holdAvatar', held: true })] } } },
  // Its next reply (nlp_ready), or the call's end: the avatar is heard again.
  held: { on: { avatarChanged: { ...heardAgain, guard: (_m, e) => e.nlpReady }, callOver: heardAgain } },
});

// ---- call: running, over -------------------------------------------------------------------

const call = region('call', {
  running: {
    on: {
      // What is complete still goes; recognition stops with the call.
      hangUp: { target: 'over', actions: [(m) => ending(m, null)] },
      micError: {
        target: 'over',
        actions: [
          (m, e) => logged(m, 'warn', 'the microphone failed during the call', { type: 'micError', kind: e.kind, message: e.message }),
          // Gone with none to open again (unplugged, taken, revoked) says so; a broken detector is the media error.
          (m, e) => ending(m, { id: e.kind === 'unavailable' ? catalogue.micLost.id : catalogue.mediaAccessFailed.id }),
        ],
      },
      audioCheckDue: {
        guard: (_m, e) => e.received === 0,
        target: 'over',
        actions: [(m) => ending(logged(m, 'warn', 'the microphone opened but gave no audio: the call ends', { waitedMs: NO_AUDIO_MS }), noAudioNotice())],
      },
      recognizerFailed: { guard: (m) => !restartLeft(m), target: 'over', actions: [(m, e) => ending(m, recognitionFailureNotice(e.connectionLost))] },
      recognizerSettled: [
        { guard: (m, e) => !e.ok && !m.s.recognizer.worked, target: 'over', actions: [(m) => ending(m, { id: catalogue.asrConfigFailed.id })] },
        { guard: (m, e) => !e.ok && !restartLeft(m), target: 'over', actions: [(m) => ending(m, recognitionFailureNotice(true))] },
      ],
    },
  },
  over: { on: {} },
});

export const REGIONS: readonly Region<Moving, Event, string>[] = [
  audio,
  recognizer,
  detector,
  sentenceRegion,
  speech,
  avatar,
  avatarVoiceRegion,
  call,
] as unknown as readonly Region<Moving, Event, string>[];

