/**
 * The voice pipeline's and the recognizer's events as one saga channel. Only the
 * low-rate events come through here (speech started/ended, words recognized,
 * failures); PCM goes pipeline → recognizer directly (features/voice/pcmFeed.ts).
 */
import { buffers, eventChannel, type EventChannel } from 'redux-saga';
import type { Recognizer } from '../services/speechRecognizer.ts';
import type { MicErrorKind, VoicePipelineOptions } from '../services/pipeline.ts';

export type VoiceEvent =
  | { type: 'speechStart' }
  | { type: 'speechEnd' }
  | { type: 'misfire' }
  /** The microphone went away or voice detection broke. */
  | { type: 'micError'; kind: MicErrorKind; message: string }
  /** Another app took the page's audio (an iOS phone call, Siri), or the browser suspended it; then it came back. */
  | { type: 'audioLost'; state: string }
  | { type: 'audioBack' }
  /**
   * `recognizer` tells a restarted recognizer's events from its predecessor's. `atMs`: where
   * the phrase starts in the call's audio (the PCM feed's clock, features/voice/pcmFeed.ts),
   * when the recognizer's place on that clock is known.
   */
  | { type: 'recognizing'; text: string; recognizer: number; atMs?: number }
  | { type: 'recognized'; text: string; recognizer: number; atMs?: number }
  /** `connectionLost`: the speech service could not be reached (not its settings). */
  | { type: 'recognizerFailed'; details: string; recognizer: number; connectionLost: boolean };

export interface VoiceEvents {
  readonly channel: EventChannel<VoiceEvent>;
  /** The pipeline options that report into the channel. */
  readonly pipelineCallbacks: Pick<VoicePipelineOptions, 'onSpeechStart' | 'onSpeechEnd' | 'onMisfire' | 'onError' | 'onAudioLost' | 'onAudioBack'>;
  /**
   * Reports `recognizer`'s words and failures, tagged with `id`; returns the unsubscribe.
   * `startMs()` says where the recognizer's audio starts on the feed's clock (null: not yet).
   */
  listen(recognizer: Recognizer, id: number, startMs?: () => number | null): () => void;
  /** Reports a failure found outside the pipeline and the recognizer (e.g. a recognizer that could not start). */
  emit(event: VoiceEvent): void;
  close(): void;
}

/**
 * A sliding buffer: a few events a second at most, so 256 are never reached unless
 * the saga is stuck — and then the newest events are the ones worth keeping.
 */
const BUFFER_SIZE = 256;

export function createVoiceEvents(): VoiceEvents {
  let emit: (event: VoiceEvent) => void = () => {};
  const channel = eventChannel<VoiceEvent>((emitter) => {
    emit = emitter;
    return () => {
      emit = () => {};
    };
  }, buffers.sliding(BUFFER_SIZE));

  return {
    channel,
    pipelineCallbacks: {
      onSpeechStart: () => emit({ type: 'speechStart' }),
      onSpeechEnd: () => emit({ type: 'speechEnd' }),
      onMisfire: () => emit({ type: 'misfire' }),
      onError: (error) => emit({ type: 'micError', kind: error.kind, message: error.message }),
      onAudioLost: (state) => emit({ type: 'audioLost', state }),
      onAudioBack: () => emit({ type: 'audioBack' }),
    },
    listen(recognizer, id, startMs = () => null) {
      const at = (offsetMs: number) => {
        const start = startMs();
        return start === null ? {} : { atMs: start + offsetMs };
      };
      const offs = [
        recognizer.on('recognizing', (text, offsetMs) => emit({ type: 'recognizing', text, recognizer: id, ...at(offsetMs) })),
        recognizer.on('recognized', (text, offsetMs) => emit({ type: 'recognized', text, recognizer: id, ...at(offsetMs) })),
        recognizer.on('canceled', (reason, details, connectionLost) => {
          // endOfStream is the normal end of a push stream we closed ourselves.
          if (reason === 'error') emit({ type: 'recognizerFailed', details, recognizer: id, connectionLost });
        }),
      ];
      return () => offs.forEach((off) => off());
    },
    emit: (event) => emit(event),
    close: () => channel.close(),
  };
}
