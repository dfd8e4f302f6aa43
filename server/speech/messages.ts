/**
 * Bodies of the service messages, shaped as the SDK's SimpleSpeechPhrase, DetailedSpeechPhrase,
 * SpeechHypothesis and SpeechDetected read them. Offsets and durations are in 100-ns ticks,
 * counted from the start of the turn's audio (the SDK adds its own turn offset).
 */
import { randomUUID } from 'node:crypto';
import { displayText } from './grammar.ts';

export type RecognitionStatus = 'Success' | 'NoMatch' | 'InitialSilenceTimeout' | 'EndOfDictation' | 'Error';

export const TICKS_PER_SECOND = 10_000_000;

export function ticks(samples: number, sampleRate = 16_000): number {
  return Math.round((samples * TICKS_PER_SECOND) / sampleRate);
}

export function turnStart(): object {
  return { context: { serviceTag: randomUUID().replace(/-/g, '') } };
}

export function speechDetected(offset: number): object {
  return { Offset: offset };
}

export function hypothesis(lexical: string, offset: number, duration: number): object {
  return { Text: lexical, Offset: offset, Duration: duration };
}

export interface PhraseInput {
  status: RecognitionStatus;
  offset: number;
  duration: number;
  /** Recognised words (lower case, no punctuation); only with Success. */
  lexical?: string;
  detailed?: boolean;
  /** Reported in NBest only; pocketsphinx gives none, so the caller says how sure the source is. */
  confidence?: number;
}

export function phrase(p: PhraseInput): object {
  if (p.status !== 'Success' || !p.lexical) {
    return { RecognitionStatus: p.status === 'Success' ? 'NoMatch' : p.status, Offset: p.offset, Duration: p.duration };
  }
  const display = displayText(p.lexical);
  const body: Record<string, unknown> = { RecognitionStatus: 'Success', DisplayText: display, Offset: p.offset, Duration: p.duration };
  if (p.detailed) {
    body['NBest'] = [{ Confidence: p.confidence ?? 0.5, Lexical: p.lexical, ITN: p.lexical, MaskedITN: p.lexical, Display: display }];
  }
  return body;
}
