import { describe, expect, it, vi } from 'vitest';
import { HttpError, type HttpClient } from './http.ts';
import { createLiveService, LiveError, parseRouteResponse, parseStartLiveResponse } from './live.ts';

const route = (data: unknown) => ({ code: 0, data });

function caught(fn: () => unknown): LiveError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LiveError);
    return error as LiveError;
  }
  throw new Error('did not throw');
}

describe('parseRouteResponse', () => {
  it('reads websockLink and srsLink', () => {
    expect(parseRouteResponse(route({ websockLink: 'ws://h/ws/signaling', srsLink: 'http://h:8080/', webglLin: 'x' }), null)).toEqual({
      websockLink: 'ws://h/ws/signaling',
      srsLink: 'http://h:8080',
    });
  });

  it('treats an empty srsLink as the page origin and honours the configured media server', () => {
    expect(parseRouteResponse(route({ websockLink: 'wss://h/ws', srsLink: '' }), null).srsLink).toBe('');
    expect(parseRouteResponse(route({ websockLink: 'wss://h/ws', srsLink: 'http://a' }), 'https://media.example/').srsLink).toBe(
      'https://media.example',
    );
  });

  it('takes the ICE servers a route names (an extension), and ignores a list that is not STUN/TURN servers', () => {
    const relay = { urls: ['turn:192.168.1.23:8443?transport=udp'], username: '1700000000:ab12', credential: 'c2lnbmVk' };
    expect(parseRouteResponse(route({ websockLink: 'wss://h/ws', srsLink: '', iceServers: [relay] }), null).iceServers).toEqual([relay]);
    expect(parseRouteResponse(route({ websockLink: 'wss://h/ws', srsLink: '', iceServers: [{ urls: 'stun:s.example:3478' }] }), null).iceServers).toEqual([
      { urls: ['stun:s.example:3478'] },
    ]);
    for (const bad of ['turn:x', [{ urls: 'https://evil.example' }], [{ urls: ['turn:x'], credential: 7 }], [], [{ urls: [] }], Array(5).fill({ urls: 'turn:x' })]) {
      const parsed = parseRouteResponse(route({ websockLink: 'wss://h/ws', srsLink: '', iceServers: bad }), null);
      expect(parsed).toEqual({ websockLink: 'wss://h/ws', srsLink: '' });
    }
  });

  it('throws routeRefused with the server msg on code 1', () => {
    const error = caught(() => parseRouteResponse({ code: 1, msg: 'route refused' }, null));
    expect(error).toMatchObject({ kind: 'routeRefused', serverText: 'route refused' });
  });

  it.each([
    ['another code', { code: 5 }],
    ['no data', { code: 0 }],
    ['an http websockLink', route({ websockLink: 'http://h/ws', srsLink: '' })],
    ['a javascript srsLink', route({ websockLink: 'ws://h/ws', srsLink: 'javascript:x' })],
    ['a non-object', 'hello'],
  ])('throws routeFailed for %s', (_name, body) => {
    expect(caught(() => parseRouteResponse(body, null)).kind).toBe('routeFailed');
  });
});

describe('parseStartLiveResponse', () => {
  it('reads the room id', () => {
    expect(parseStartLiveResponse({ status: 'success', room_id: 'r-1', system_type: 'x' })).toEqual({ roomId: 'r-1', systemType: 'x' });
    expect(parseStartLiveResponse({ status: 'success', room_id: 42 }).roomId).toBe('42');
  });

  it('throws startRefused with errmsg on status error', () => {
    expect(caught(() => parseStartLiveResponse({ status: 'error', errmsg: 'no avatar available' }))).toMatchObject({
      kind: 'startRefused',
      serverText: 'no avatar available',
    });
  });

  it('throws startFailed without a room', () => {
    expect(caught(() => parseStartLiveResponse({ status: 'success' })).kind).toBe('startFailed');
  });
});

describe('live service', () => {
  const config = { routingServiceUrl: 'https://r', liveServiceUrl: 'https://l', serverName: 'standin', mediaServerUrl: null };

  it('sends the documented payloads', async () => {
    const postJson = vi.fn((url: string) =>
      Promise.resolve(
        url.endsWith('/get/route')
          ? route({ websockLink: 'ws://h/ws', srsLink: '' })
          : url.endsWith('/start_live')
            ? { status: 'success', room_id: 'r' }
            : { data: { code: 200002 } },
      ),
    );
    const live = createLiveService({ postJson } as unknown as HttpClient, config);
    await live.getRoute({ uid: 'demo' });
    await live.startLive({ appId: 'demo', uid: 'demo', deviceId: 'H5x' }, undefined, 15_000);
    await expect(live.stopLive({ roomId: 'r', deviceId: 'H5x' })).resolves.toBe(true);
    expect(postJson.mock.calls).toEqual([
      ['https://r/get/route', { uid: 'demo', serverName: 'standin' }, { signal: undefined }],
      ['https://l/start_live', { app_id: 'demo', uid: 'demo', device_id: 'H5x' }, { signal: undefined, timeoutMs: 15_000 }],
      ['https://l/stop_live', { room_id: 'r', device_id: 'H5x' }, { signal: undefined }],
    ]);
  });

  it('turns a failed route call into routeFailed and marks a start_live timeout', async () => {
    const postJson = vi.fn(() => Promise.reject(new HttpError('timeout', 'timed out')));
    const live = createLiveService({ postJson } as unknown as HttpClient, config);
    await expect(live.getRoute({ uid: 'demo' })).rejects.toMatchObject({ kind: 'routeFailed' });
    const error: unknown = await live.startLive({ appId: 'a', uid: 'a', deviceId: 'd' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiveError);
    expect((error as LiveError).timedOut).toBe(true);
  });
});
