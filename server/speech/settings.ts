/**
 * What a connection asked for, from the URL the SDK built (SpeechConnectionFactory and
 * ConnectionFactoryBase.setCommonUrlParams) and from its speech.context message
 * (ServiceRecognizerBase.setSpeechSegmentationTimeoutJson). The SDK sends the segmentation
 * silence in both places; speech.context wins because it is per turn.
 */

export type RecognitionMode = 'conversation' | 'interactive' | 'dictation';

/** The paths SpeechConnectionFactory uses for recognition, by mode. */
export const RECOGNITION_PATHS: Record<string, RecognitionMode> = {
  '/speech/recognition/conversation/cognitiveservices/v1': 'conversation',
  '/speech/recognition/interactive/cognitiveservices/v1': 'interactive',
  '/speech/recognition/dictation/cognitiveservices/v1': 'dictation',
};

export const DEFAULT_SEGMENTATION_SILENCE_MS = 500;
/** The real service ends an interactive turn after 5 s without speech. */
export const DEFAULT_INTERACTIVE_INITIAL_SILENCE_MS = 5000;
const MIN_SILENCE_MS = 100;
const MAX_SILENCE_MS = 5000;
const MAX_INITIAL_SILENCE_MS = 60_000;

export interface ConnectionSettings {
  mode: RecognitionMode;
  language: string;
  detailed: boolean;
  segmentationSilenceMs: number;
  /** Null: no initial-silence timeout (continuous modes unless the client sets one). */
  initialSilenceMs: number | null;
}

function intParam(value: unknown, min: number, max: number): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= min && n <= max ? Math.round(n) : null;
}

export function modeForPath(pathname: string): RecognitionMode | null {
  return RECOGNITION_PATHS[pathname.replace(/\/+$/, '')] ?? null;
}

export function settingsFromUrl(mode: RecognitionMode, query: URLSearchParams): ConnectionSettings {
  // Interactive mode ends the utterance on endSilenceTimeoutMs when it is given.
  const endSilence = mode === 'interactive' ? intParam(query.get('endSilenceTimeoutMs'), MIN_SILENCE_MS, MAX_SILENCE_MS) : null;
  const initial = intParam(query.get('initialSilenceTimeoutMs'), MIN_SILENCE_MS, MAX_INITIAL_SILENCE_MS);
  return {
    mode,
    language: query.get('language') ?? 'en-US',
    detailed: query.get('format')?.toLowerCase() === 'detailed',
    segmentationSilenceMs:
      intParam(query.get('segmentationSilenceTimeoutMs'), MIN_SILENCE_MS, MAX_SILENCE_MS) ?? endSilence ?? DEFAULT_SEGMENTATION_SILENCE_MS,
    initialSilenceMs: initial ?? (mode === 'interactive' ? DEFAULT_INTERACTIVE_INITIAL_SILENCE_MS : null),
  };
}

function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

/** Settings updated by a speech.context body; unknown or invalid fields leave them as they were. */
export function applySpeechContext(base: ConnectionSettings, context: unknown): ConnectionSettings {
  const detection = field(context, 'phraseDetection');
  const language = field(detection, 'language');
  const segmentation = field(field(detection, base.mode), 'segmentation');
  const silence = intParam(field(segmentation, 'segmentationSilenceTimeoutMs'), MIN_SILENCE_MS, MAX_SILENCE_MS);
  const format = field(field(context, 'phraseOutput'), 'format');
  return {
    ...base,
    language: typeof language === 'string' && language !== '' ? language : base.language,
    segmentationSilenceMs: silence ?? base.segmentationSilenceMs,
    detailed: typeof format === 'string' ? format.toLowerCase() === 'detailed' : base.detailed,
  };
}

export function isEnglish(language: string): boolean {
  return /^en(-|_|$)/i.test(language);
}
