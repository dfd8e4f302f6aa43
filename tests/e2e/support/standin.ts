/**
 * A small client for the stand-in's control endpoints (docs/contract.md C12, C13 and C14)
 * and the read-only SRS streams API, for the session tests and the engine lanes.
 * It takes Playwright's `request` fixture or, outside Playwright, `fetchRequester`.
 */

/** What this client needs of an HTTP client: Playwright's APIRequestContext has it. */
export interface Requester {
  get(url: string): Promise<Answer>;
  post(url: string, options?: { data?: unknown }): Promise<Answer>;
  delete(url: string): Promise<Answer>;
}

interface Answer {
  status(): number;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** A Requester on fetch, against the stand-in at `origin`. */
export function fetchRequester(origin: string): Requester {
  const call = async (method: string, url: string, data?: unknown): Promise<Answer> => {
    const response = await fetch(origin + url, {
      method,
      ...(data === undefined ? {} : { body: JSON.stringify(data), headers: { 'content-type': 'application/json' } }),
    });
    const body = await response.text();
    return { status: () => response.status, text: async () => body, json: async () => JSON.parse(body) as unknown };
  };
  return {
    get: (url) => call('GET', url),
    post: (url, options) => call('POST', url, options?.data),
    delete: (url) => call('DELETE', url),
  };
}

async function expectStatus(answer: Answer, want: number, what: string): Promise<void> {
  if (answer.status() !== want) throw new Error(`${what}: HTTP ${answer.status()} (want ${want}): ${await answer.text()}`);
}

// One list of fault names: the stand-in's own.
export { FAULT_NAMES as FAULTS, type FaultName as Fault } from '../../../server/faults.ts';
import type { FaultName as Fault } from '../../../server/faults.ts';


export interface StandinEvent {
  t: number;
  channel: 'http' | 'signaling' | 'whep' | 'speech';
  dir: 'in' | 'out';
  body: Record<string, unknown>;
}

export async function setFaults(request: Requester, ...faults: Fault[]): Promise<void> {
  await expectStatus(await request.post('/__standin/faults', { data: { faults } }), 200, 'set faults');
}

export async function clearFaults(request: Requester): Promise<void> {
  await expectStatus(await request.delete('/__standin/faults'), 200, 'clear faults');
}

/**
 * A GET, sent once more if the pooled connection it went out on was being closed: the
 * stand-in closes a keep-alive connection idle 5 s, and a loaded test process can reuse one
 * in the moment it closes ("socket hang up", ECONNRESET). Only the connection failed, and a
 * GET is safe to repeat; HTTP clients (undici, browsers) do the same. Any answer counts.
 */
async function get(request: Requester, url: string): Promise<Answer> {
  try {
    return await request.get(url);
  } catch (error) {
    if (!/ECONNRESET|socket hang up/.test(String(error))) throw error;
    return request.get(url);
  }
}

export async function events(request: Requester): Promise<StandinEvent[]> {
  const response = await get(request, '/__standin/events');
  await expectStatus(response, 200, 'events');
  return (await response.json()) as StandinEvent[];
}

export async function clearEvents(request: Requester): Promise<void> {
  await expectStatus(await request.delete('/__standin/events'), 204, 'clear events');
}

/** HTTP requests the stand-in received for `path` (a prefix of the path with its query). */
export function httpIn(list: StandinEvent[], path: string): StandinEvent[] {
  return list.filter((e) => e.channel === 'http' && e.dir === 'in' && String(e.body.path).startsWith(path));
}

/** HTTP answers the stand-in sent for `path`. */
export function httpOut(list: StandinEvent[], path: string): StandinEvent[] {
  return list.filter((e) => e.channel === 'http' && e.dir === 'out' && String(e.body.path).startsWith(path));
}

/** The statuses of the answers to WHEP offers (not to the DELETEs that hang sessions up). */
export function whepOfferStatuses(list: StandinEvent[]): unknown[] {
  return httpOut(list, '/rtc/v1/whep/')
    .filter((e) => e.body.method === 'POST')
    .map((e) => e.body.status);
}

/** The WHEP sessions the client hung up (DELETE of a Location), as the stand-in recorded them. */
export function whepDeletes(list: StandinEvent[]): Record<string, unknown>[] {
  return list.filter((e) => e.channel === 'whep' && e.dir === 'in' && e.body.method === 'DELETE').map((e) => e.body);
}

/** Room ids the stand-in handed out through /start_live. */
export function startedRooms(list: StandinEvent[]): string[] {
  return httpOut(list, '/start_live')
    .map((e) => (e.body.body as { room_id?: unknown } | null)?.room_id)
    .filter((id): id is string => typeof id === 'string');
}

/**
 * Room ids stopped with /stop_live, among those started in the same list: a
 * late stop of an earlier test's room (its page closing) is not this test's.
 */
export function stoppedRooms(list: StandinEvent[]): string[] {
  const started = new Set(startedRooms(list));
  return httpIn(list, '/stop_live')
    .map((e) => (e.body.body as { room_id?: unknown } | null)?.room_id)
    .filter((id): id is string => typeof id === 'string' && started.has(id));
}

/** Signaling frames the client sent (in) or received (out), bodies only. */
export function signalingFrames(list: StandinEvent[], dir: 'in' | 'out'): Record<string, unknown>[] {
  return list.filter((e) => e.channel === 'signaling' && e.dir === dir).map((e) => e.body);
}

/** The rooms that exist on the stand-in right now (one SRS stream per room). */
export async function roomIds(request: Requester): Promise<string[]> {
  const response = await get(request, '/api/v1/streams/?count=100');
  await expectStatus(response, 200, 'streams');
  const { streams } = (await response.json()) as { streams: { name: string }[] };
  return streams.map((s) => s.name);
}

/**
 * After a test: stops every room the page's device still owns, so a failed
 * test cannot leave avatars encoding (the stand-in would reclaim them only
 * after 60 s, and refuses more than 8). Returns the ids it had to stop.
 */
export async function stopLeftoverRooms(request: Requester, deviceId: string | null): Promise<string[]> {
  if (!deviceId) return [];
  const stopped: string[] = [];
  for (const roomId of await roomIds(request)) {
    const response = await request.post('/stop_live', { data: { room_id: roomId, device_id: deviceId } });
    if (response.status() === 200) stopped.push(roomId);
  }
  return stopped;
}

/**
 * The voice turn `msgId` as the stand-in saw it, in order: the client's wordings
 * (`partial`, consecutive ones as one), the server's `asr_end`, the client's `nlpmsg`
 * and `end_point`. The specification's order is `partial, asr_end, nlpmsg, end_point`.
 */
export function voiceTurnSteps(list: StandinEvent[], msgId: string): string[] {
  const steps: string[] = [];
  for (const { channel, dir, body } of list) {
    if (channel !== 'signaling' || (body.data as { msg_id?: unknown } | undefined)?.msg_id !== msgId && body.msg_id !== msgId) continue;
    const step =
      dir === 'out'
        ? body.command === 'asr_end'
          ? 'asr_end'
          : null
        : body.source === 'nlpmsg'
          ? 'nlpmsg'
          : body.source === 'asrcallback'
            ? body.end_point === true
              ? 'end_point'
              : 'partial'
            : null;
    // A wording the client sent before the server's asr_end reached it crosses that asr_end on
    // the wire and is logged after it (the stand-in ends a turn 300 ms after its last wording,
    // and a loaded client's final wording can come later). The client sends none once it has
    // the asr_end (src/features/voice/sagas/turn.test.ts); the order checked here is the server's.
    if (step === 'partial' && steps.at(-1) === 'asr_end') continue;
    if (step && !(step === 'partial' && steps.at(-1) === 'partial')) steps.push(step);
  }
  return steps;
}
