/**
 * What the stand-in saw, oldest first, for GET /__standin/events.
 * Bounded so that a long demo cannot grow the process without limit.
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

const MAX_EVENTS = 10_000;
const startedAt = performance.now();
const events: StandinEvent[] = [];

export function recordEvent(channel: EventChannel, dir: EventDir, body: unknown): void {
  events.push({ t: Math.round(performance.now() - startedAt), channel, dir, body });
  if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
}

export function listEvents(): readonly StandinEvent[] {
  return events;
}

export function clearEvents(): void {
  events.length = 0;
}
