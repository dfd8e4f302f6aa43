import { describe, expect, it, vi } from 'vitest';
import type { HttpClient } from './http.ts';
import { createStreamsService, isRoomStreamActive } from './streams.ts';

const stream = (name: string, active: boolean) => ({ id: 'x', name, app: 'live', publish: { active, cid: 'c' } });

describe('isRoomStreamActive', () => {
  it('is true only for the room’s stream with publish.active true', () => {
    expect(isRoomStreamActive({ code: 0, streams: [stream('other', true), stream('room-1', true)] }, 'room-1')).toBe(true);
    expect(isRoomStreamActive({ code: 0, streams: [stream('room-1', false)] }, 'room-1')).toBe(false);
    expect(isRoomStreamActive({ code: 0, streams: [{ name: 'room-1', publish: 'yes' }, null] }, 'room-1')).toBe(false);
    expect(isRoomStreamActive({ code: 0, streams: [] }, 'room-1')).toBe(false);
  });

  it('throws on an answer that is not the SRS shape', () => {
    expect(() => isRoomStreamActive({ code: 1, streams: [] }, 'r')).toThrow();
    expect(() => isRoomStreamActive({ code: 0 }, 'r')).toThrow();
    expect(() => isRoomStreamActive('nope', 'r')).toThrow();
  });

  it('asks the streams API of the media server', async () => {
    const getJson = vi.fn(() => Promise.resolve({ code: 0, streams: [stream('r', true)] }));
    const service = createStreamsService({ getJson } as unknown as HttpClient);
    await expect(service.isStreamActive({ srsLink: 'http://h', roomId: 'r' })).resolves.toBe(true);
    expect(getJson).toHaveBeenCalledWith('http://h/api/v1/streams/?count=100', { signal: undefined });
  });
});
