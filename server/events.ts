/**
 * What the stand-in saw, oldest first, for GET /__standin/events.
 *
 * Bounded by bytes, not only by count: anyone who can open a socket or send a
 * request can make an entry, and whole 200 KB frames or bodies of thousands of
 * tiny arrays used to pile up to gigabytes. Each entry is kept as the JSON text
 * of the event (one flat string: a parsed body of 5,000 empty arrays costs far
 * more as objects than as its 16 KB of text, and a string cut out of a larger
 * one keeps the larger one alive in V8, which a freshly serialised string does
 * not). A body whose text is longer than MAX_BODY_CHARS is replaced by a note
 * with its size and the start of its text; the oldest entries are dropped once
 * the log holds more than MAX_LOG_CHARS.
 */
export type EventChannel = 'http' | 'signaling' | 'whep' | 'speech';
export type EventDir = 'in' | 'out';

export interface StandinEvent {
  /** Milliseconds since the stand-in started (monotonic). */
  t: number;
  channel: EventChannel;
  dir: EventDir;
  body: unknown;
}

export const EVENT_LIMITS = {
  maxEvents: 10_000,
  /**
   * Characters of one body's JSON before it is summarised: the streams list of 8 rooms (about
   * 6,000) stays whole, a signaling frame's 100,000-character text does not.
   */
  maxBodyChars: 16_384,
  /** Characters of JSON for the whole log: at most 2 bytes each, so about 8 MB at worst. */
  maxLogChars: 4_000_000,
  /** How much of a summarised body's text is kept. */
  previewChars: 500,
} as const;

const startedAt = performance.now();
/** A ring of JSON texts: `first` is the oldest; slots before it are free. */
let entries: string[] = [];
let first = 0;
let chars = 0;

function bodyText(body: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    return JSON.stringify({ unserialisable: String(err) });
  }
  if (text === undefined) return 'null';
  if (text.length <= EVENT_LIMITS.maxBodyChars) return text;
  return JSON.stringify({ truncated: true, chars: text.length, preview: text.slice(0, EVENT_LIMITS.previewChars) });
}

export function recordEvent(channel: EventChannel, dir: EventDir, body: unknown): void {
  const t = Math.round(performance.now() - startedAt);
  // Built by concatenation and stored flat: the entry owns its characters.
  const entry = `{"t":${t},"channel":${JSON.stringify(channel)},"dir":${JSON.stringify(dir)},"body":${bodyText(body)}}`;
  entries.push(entry);
  chars += entry.length;
  while (entries.length - first > EVENT_LIMITS.maxEvents || (chars > EVENT_LIMITS.maxLogChars && entries.length - first > 1)) {
    chars -= entries[first]!.length;
    entries[first] = '';
    first++;
  }
  // Compact now and then, so the dropped slots do not accumulate.
  if (first > 1024 && first * 2 > entries.length) {
    entries = entries.slice(first);
    first = 0;
  }
}

export function listEvents(): StandinEvent[] {
  return entries.slice(first).map((entry) => JSON.parse(entry) as StandinEvent);
}

/** The log as the JSON array GET /__standin/events answers, without parsing every entry again. */
export function eventsJson(): string {
  return `[${entries.slice(first).join(',')}]`;
}

/** Characters of JSON the log holds now (tests and the abuse suite read it). */
export function eventLogChars(): number {
  return chars;
}

export function clearEvents(): void {
  entries = [];
  first = 0;
  chars = 0;
}
