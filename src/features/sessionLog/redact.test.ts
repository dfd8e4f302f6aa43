import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from './redact.ts';

const KEY = 'f3a9c2e1b7d84c0e9a1b2c3d4e5f6a7b';

describe('redaction', () => {
  it('redacts the speech key by field name and learns its value', () => {
    const r = createRedactor();
    const out = r.redact({ data: { AsrList: { app_key: KEY, region: 'eastasia' } } });
    expect(out).toEqual({ data: { AsrList: { app_key: REDACTED, region: 'eastasia' } } });
    // once learnt, the value is replaced wherever else it shows up
    expect(r.redact({ note: `speech config ${KEY} failed` })).toEqual({ note: `speech config ${REDACTED} failed` });
    expect(r.scrubText(`{"x":"${KEY}"}`)).not.toContain(KEY);
  });

  it('redacts camelCase keys and every kind of token field', () => {
    const r = createRedactor();
    const out = r.redact({
      asr: { appKey: KEY, region: 'eastasia' },
      token: 'tok-123456789',
      accessToken: 'a'.repeat(20),
      refresh_token: 'r'.repeat(20),
      headers: { Authorization: 'Bearer abc.def.ghi', 'Ocp-Apim-Subscription-Key': KEY },
      iceServers: [{ urls: ['turn:turn.example:3478'], username: 'u', credential: 'turn-secret' }],
    });
    const text = JSON.stringify(out);
    for (const secret of [KEY, 'tok-123456789', 'a'.repeat(20), 'r'.repeat(20), 'abc.def.ghi', 'turn-secret']) {
      expect(text).not.toContain(secret);
    }
    expect(out).toMatchObject({ asr: { region: 'eastasia' }, iceServers: [{ username: 'u' }] });
  });

  it('redacts key and token query parameters inside URLs and Bearer headers inside text', () => {
    const r = createRedactor();
    const out = r.redact({
      url: 'wss://speech.example/stt?language=en-US&Ocp-Apim-Subscription-Key=SECRETKEY1&format=simple',
      other: 'https://x.example/a?token=T0KEN99&key=K3Y&auth_token=zzz#access_token=hash1',
      line: 'sent Authorization: Bearer eyJhbGciOi.payload.sig',
    }) as Record<string, string>;
    expect(out.url).toBe(`wss://speech.example/stt?language=en-US&Ocp-Apim-Subscription-Key=${REDACTED}&format=simple`);
    expect(out.other).toBe(`https://x.example/a?token=${REDACTED}&key=${REDACTED}&auth_token=${REDACTED}#access_token=${REDACTED}`);
    expect(out.line).toBe(`sent Authorization: Bearer ${REDACTED}`);
  });

  it('replaces audio payloads and any binary data with a marker carrying its size', () => {
    const r = createRedactor();
    const out = r.redact({
      audio: new Int16Array(1536),
      pcm: [0.1, 0.2, 0.3],
      chunk: { audioData: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=' },
      raw: new ArrayBuffer(640),
      nested: [new Uint8Array(10)],
    });
    expect(out).toEqual({
      audio: '[binary 3072 bytes]',
      pcm: '[audio 3 samples]',
      chunk: { audioData: '[audio 60 chars]' },
      raw: '[binary 640 bytes]',
      nested: ['[binary 10 bytes]'],
    });
  });

  it('keeps state that merely has audio-ish or key-ish names', () => {
    const r = createRedactor();
    const value = { audio: { muted: false }, key: 'notice-uuid-1234', pcmEnabled: true, token: false };
    expect(r.redact(value)).toBe(value);
  });

  it('returns unchanged values by reference (no copies on the hot path)', () => {
    const r = createRedactor();
    const action = { type: 'session/liveStarted', payload: { roomId: 'room-1', list: [1, 2, { a: 'b' }] } };
    expect(r.redact(action)).toBe(action);
    const withSecret = { type: 'x', payload: { keep: { deep: 1 }, token: 'abcdefgh' } };
    const out = r.redact(withSecret) as typeof withSecret;
    expect(out).not.toBe(withSecret);
    expect(out.payload.keep).toBe(withSecret.payload.keep);
    expect(withSecret.payload.token).toBe('abcdefgh');
  });

  it('survives cycles, class instances, functions and errors', () => {
    const r = createRedactor();
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    const out = r.redact({ cyclic, map: new Map([[1, 2]]), fn: () => 1, err: new Error('boom token=abc') });
    // the depth cap cuts the cycle, so the result serializes
    expect(JSON.stringify(out)).toContain('[too deep]');
    expect(r.redact({ map: new Map(), fn: () => 1, err: new Error('boom token=abc') })).toEqual({
      map: '[Map]',
      fn: '[function]',
      err: { name: 'Error', message: `boom token=${REDACTED}` },
    });
  });
});
