/**
 * The event log's bound (issue 21): by bytes, whatever the bodies are.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clearEvents, EVENT_LIMITS, eventLogChars, eventsJson, listEvents, recordEvent } from './events.ts';

afterEach(() => clearEvents());

describe('the event log', () => {
  it('summarises a large body: its size and the start of its text', () => {
    const frame = { type: 'say_hello', pad: 'x'.repeat(200_000) };
    recordEvent('signaling', 'in', frame);
    const [event] = listEvents();
    expect(event!.body).toEqual({ truncated: true, chars: JSON.stringify(frame).length, preview: expect.stringMatching(/^\{"type":"say_hello","pad":"x+$/) as unknown });
    expect((event!.body as { preview: string }).preview).toHaveLength(EVENT_LIMITS.previewChars);
  });

  it('keeps at most maxLogChars of JSON, dropping the oldest, and answers as one JSON array', () => {
    const body = { uid: 'demo', pad: Array.from({ length: 5_000 }, () => []) };
    for (let i = 0; i < 1_000; i++) recordEvent('http', 'in', { i, body });
    expect(eventLogChars()).toBeLessThanOrEqual(EVENT_LIMITS.maxLogChars);
    const events = listEvents();
    expect(events.length).toBeLessThan(1_000);
    expect((events.at(-1)!.body as { i: number }).i).toBe(999);
    expect(JSON.parse(eventsJson())).toEqual(events);
  });

  it('keeps at most maxEvents events', () => {
    for (let i = 0; i < EVENT_LIMITS.maxEvents + 5; i++) recordEvent('whep', 'out', i);
    const events = listEvents();
    expect(events).toHaveLength(EVENT_LIMITS.maxEvents);
    expect(events[0]!.body).toBe(5);
  });
});
