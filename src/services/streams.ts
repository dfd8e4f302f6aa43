/**
 * GET {srsLink}/api/v1/streams/?count=100 (the SRS HTTP API): is the room's stream being
 * published yet? With the slash: SRS registers that path and answers the bare one with a 302,
 * which doubled every poll and, behind a proxy with a path prefix, redirected to the wrong place. Only `code`, and each stream's `name` and `publish.active`,
 * are read; the rest of the SRS shape is not relied on.
 */
import { isObject, numberField } from './guards.ts';
import { HttpError, type HttpClient } from './http.ts';

export interface StreamsService {
  /** True when the stream named `roomId` is listed with publish.active true. Throws HttpError on a failed or malformed answer. */
  isStreamActive(params: { srsLink: string; roomId: string }, signal?: AbortSignal): Promise<boolean>;
}

export function isRoomStreamActive(body: unknown, roomId: string): boolean {
  if (!isObject(body) || numberField(body, 'code') !== 0 || !Array.isArray(body.streams)) {
    throw new HttpError('badShape', 'streams: unexpected answer');
  }
  return body.streams.some(
    (stream: unknown) =>
      isObject(stream) && stream.name === roomId && isObject(stream.publish) && stream.publish.active === true,
  );
}

export function createStreamsService(http: HttpClient): StreamsService {
  return {
    async isStreamActive({ srsLink, roomId }, signal) {
      const body = await http.getJson(`${srsLink}/api/v1/streams/?count=100`, { signal });
      return isRoomStreamActive(body, roomId);
    },
  };
}
