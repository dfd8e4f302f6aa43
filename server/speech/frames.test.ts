import { describe, expect, it } from 'vitest';
import { FrameError, makeBinaryFrame, makeTextFrame, parseBinaryFrame, parseTextFrame } from './frames.ts';
import { isRiff, makeWav, parseWaveHeader, unsupportedFormat, WaveError } from './wav.ts';

const RID = '835F49C17BA1429ABC1B85EE04A2F0D2';

describe('text frames', () => {
  it('parses what the SDK sends', () => {
    const raw = `Path: speech.config\r\nX-RequestId: ${RID}\r\nX-Timestamp: 2026-01-01T00:00:00.000Z\r\nContent-Type: application/json\r\n\r\n{"context":{}}`;
    const frame = parseTextFrame(raw);
    expect(frame).toMatchObject({ path: 'speech.config', requestId: RID, body: '{"context":{}}' });
    expect(frame.headers['content-type']).toBe('application/json');
  });

  it('round-trips a frame it makes, with the headers the SDK reads', () => {
    const text = makeTextFrame('speech.phrase', RID, '{"RecognitionStatus":"Success"}');
    expect(text).toMatch(/^Path: speech\.phrase\r\nX-RequestId: [0-9A-F]{32}\r\nX-Timestamp: \S+\r\nContent-Type: application\/json; charset=utf-8\r\n\r\n\{/);
    expect(parseTextFrame(text)).toMatchObject({ path: 'speech.phrase', requestId: RID, body: '{"RecognitionStatus":"Success"}' });
  });

  it('keeps a body that itself contains blank lines', () => {
    expect(parseTextFrame(`Path: x\r\nX-RequestId: ${RID}\r\n\r\na\r\n\r\nb`).body).toBe('a\r\n\r\nb');
  });

  it.each([
    ['no blank line', `Path: speech.config\r\nX-RequestId: ${RID}\r\n{}`, /blank line/],
    ['no Path', `X-RequestId: ${RID}\r\n\r\n{}`, /Path/],
    ['no X-RequestId', 'Path: speech.config\r\n\r\n{}', /X-RequestId/],
    ['a bad X-RequestId', 'Path: speech.config\r\nX-RequestId: a b\r\n\r\n{}', /X-RequestId/],
    ['a header without a colon', `Path: a\r\nX-RequestId: ${RID}\r\ngarbage\r\n\r\n{}`, /malformed header/],
  ])('rejects a frame with %s', (_what, raw, message) => {
    expect(() => parseTextFrame(raw)).toThrow(FrameError);
    expect(() => parseTextFrame(raw)).toThrow(message);
  });
});

describe('binary frames', () => {
  it('parses headers and payload, and an empty payload as end of audio', () => {
    const audio = Buffer.from([1, 2, 3, 4]);
    const frame = parseBinaryFrame(makeBinaryFrame('audio', RID, audio, { 'Content-Type': 'audio/x-wav' }));
    expect(frame).toMatchObject({ path: 'audio', requestId: RID });
    expect(frame.headers['content-type']).toBe('audio/x-wav');
    expect([...frame.payload]).toEqual([1, 2, 3, 4]);
    expect(parseBinaryFrame(makeBinaryFrame('audio', RID, Buffer.alloc(0))).payload.length).toBe(0);
  });

  it('reads the header length as big-endian', () => {
    const headers = Buffer.from(`Path: audio\r\nX-RequestId: ${RID}\r\n`, 'latin1');
    const frame = Buffer.concat([Buffer.from([headers.length >> 8, headers.length & 0xff]), headers, Buffer.from([9])]);
    expect([...parseBinaryFrame(frame).payload]).toEqual([9]);
  });

  it.each([
    ['shorter than the length field', Buffer.from([0]), /shorter than its header length/],
    ['a zero header length', Buffer.from([0, 0, 1, 2]), /without headers/],
    ['a header length past the end', Buffer.from([0, 50, 65, 66]), /shorter than its declared headers/],
    ['a huge header length', Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.alloc(70_000)]), /too long/],
    ['headers missing the path', Buffer.concat([Buffer.from([0, 10]), Buffer.from('X-Foo: 1\r\n')]), /Path/],
  ])('rejects a frame with %s', (_what, raw, message) => {
    expect(() => parseBinaryFrame(raw)).toThrow(FrameError);
    expect(() => parseBinaryFrame(raw)).toThrow(message);
  });
});

describe('wave header', () => {
  it('reads the format of the header the SDK sends and any samples after it', () => {
    const wav = makeWav(Buffer.from([5, 0, 6, 0]));
    expect(isRiff(wav)).toBe(true);
    const parsed = parseWaveHeader(wav);
    expect(parsed.format).toEqual({ formatTag: 1, channels: 1, sampleRate: 16000, bitsPerSample: 16 });
    expect([...parsed.data]).toEqual([5, 0, 6, 0]);
    expect(unsupportedFormat(parsed.format)).toBeNull();
  });

  it('names what is unsupported', () => {
    expect(unsupportedFormat({ formatTag: 1, channels: 1, sampleRate: 48000, bitsPerSample: 16 })).toMatch(/48000 Hz/);
    expect(unsupportedFormat({ formatTag: 1, channels: 2, sampleRate: 16000, bitsPerSample: 16 })).toMatch(/2 channels/);
    expect(unsupportedFormat({ formatTag: 3, channels: 1, sampleRate: 16000, bitsPerSample: 32 })).toMatch(/format tag 3/);
  });

  it('rejects a truncated header', () => {
    expect(() => parseWaveHeader(makeWav(Buffer.alloc(0)).subarray(0, 30))).toThrow(WaveError);
    expect(() => parseWaveHeader(Buffer.from('RIFF....WAVEdata\0\0\0\0', 'latin1'))).toThrow(/data chunk before fmt/);
  });
});
