import { describe, expect, it } from 'vitest';
import { encodeClientFrame, MAX_FRAME_CHARS, MAX_TEXT_CHARS, parseServerFrame } from './protocol.ts';

const parse = (value: unknown) => parseServerFrame(typeof value === 'string' ? value : JSON.stringify(value));

describe('parseServerFrame', () => {
  it.each([
    ['a binary frame', new ArrayBuffer(4)],
    ['malformed JSON', '{"msg_type":'],
    ['an array', '[1,2]'],
    ['a string', '"asr"'],
    ['null', 'null'],
    ['no msg_type and no command', '{"text":"hi"}'],
    ['a command frame without its command', '{"msg_type":"command","msg_id":"r-1"}'],
    ['an unknown command word without msg_type', '{"command":"reboot","msg_id":"r-1"}'],
    ['an unknown msg_type', '{"msg_type":"video"}'],
    ['an unknown command word', '{"msg_type":"command","command":"reboot"}'],
    ['asr without text', '{"msg_type":"asr","msg_id":"u-1"}'],
    ['asr with a numeric text', '{"msg_type":"asr","msg_id":"u-1","text":5}'],
    ['tts without msg_id', '{"msg_type":"tts","text":"hi"}'],
    ['tts with an object msg_id', '{"msg_type":"tts","msg_id":{},"text":"hi"}'],
    ['tts with nothing usable', '{"msg_type":"tts","msg_id":"r","image_url":"javascript:alert(1)"}'],
  ])('drops %s', (_name, raw) => {
    const result = parseServerFrame(raw);
    expect(result.ok).toBe(false);
  });

  it('reads the heartbeat extension answer, pong (PROTOCOL.md, Heartbeat)', () => {
    expect(parse({ msg_type: 'pong' })).toEqual({ ok: true, messages: [{ msg_type: 'pong' }], notes: [] });
  });

  it('drops a frame larger than the limit without parsing it', () => {
    const result = parseServerFrame(`{"msg_type":"asr","msg_id":"u","text":"${'x'.repeat(MAX_FRAME_CHARS)}"}`);
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('too large') });
  });

  it('accepts every command word with its optional fields', () => {
    expect(parse({ msg_type: 'command', command: 'nlp_end', msg_id: 'r-7', interrupted: true, extra: 1 })).toEqual({
      ok: true,
      messages: [{ msg_type: 'command', command: 'nlp_end', msg_id: 'r-7', interrupted: true }],
      notes: [],
    });
    expect(parse({ msg_type: 'command', command: 'asr_end', msg_id: 3, text: 'where is the store' })).toMatchObject({
      ok: true,
      messages: [{ msg_id: '3', text: 'where is the store' }],
    });
  });

  it('ignores wrongly typed optional fields and says so', () => {
    const result = parse({ msg_type: 'command', command: 'asr_running', text: 42, interrupted: 'yes' });
    expect(result).toEqual({ ok: true, messages: [{ msg_type: 'command', command: 'asr_running' }], notes: ['text: not a string'] });
  });

  it('truncates texts longer than 100,000 characters', () => {
    const result = parse({ msg_type: 'tts', msg_id: 'r', text: 'y'.repeat(MAX_TEXT_CHARS + 10) });
    expect(result.ok && result.messages[0]!.msg_type === 'tts' && result.messages[0]!.text?.length).toBe(MAX_TEXT_CHARS);
    expect(result.ok && result.notes).toEqual(['text: truncated']);
  });

  it('keeps http(s) media URLs and drops any other scheme at the boundary', () => {
    const result = parse({
      msg_type: 'tts',
      msg_id: 'r-1',
      text: 'Look',
      image_url: 'https://example.com/a.png',
      video_url: 'data:video/mp4;base64,AAAA',
      web_url: 'javascript:alert(1)',
    });
    expect(result).toEqual({
      ok: true,
      messages: [{ msg_type: 'tts', msg_id: 'r-1', text: 'Look', image_url: 'https://example.com/a.png' }],
      notes: ['video_url: dropped (not an http(s) URL)', 'web_url: dropped (not an http(s) URL)'],
    });
  });

  it('drops relative and malformed URLs', () => {
    const result = parse({ msg_type: 'tts', msg_id: 'r', text: 't', image_url: '/assets/a.png', web_url: 'http://' });
    expect(result.ok && result.messages).toEqual([{ msg_type: 'tts', msg_id: 'r', text: 't' }]);
  });

  it('keeps only string suggestions of related_qa', () => {
    const result = parse({ msg_type: 'tts', msg_id: 'r', related_qa: ['what are your opening hours', 3, '', null] });
    expect(result.ok && result.messages).toEqual([{ msg_type: 'tts', msg_id: 'r', related_qa: ['what are your opening hours'] }]);
  });

  it('accepts quit with or without text, and error frames', () => {
    expect(parse({ msg_type: 'quit' })).toMatchObject({ ok: true, messages: [{ msg_type: 'quit' }] });
    expect(parse({ msg_type: 'quit', text: 'bye' })).toMatchObject({ ok: true, messages: [{ msg_type: 'quit', text: 'bye' }] });
    expect(parse({ msg_type: 'error', text: 'unknown room' })).toMatchObject({ ok: true, messages: [{ msg_type: 'error', text: 'unknown room' }] });
  });

  it('accepts an asr echo', () => {
    expect(parse({ msg_type: 'asr', msg_id: 'u-1', text: 'hello' })).toEqual({
      ok: true,
      messages: [{ msg_type: 'asr', msg_id: 'u-1', text: 'hello' }],
      notes: [],
    });
  });
});

/**
 * The specification lists the received fields as "msg_type (asr, tts, quit), text, msg_id,
 * image_url, video_url, web_url, command" and names no message type for commands: a
 * command word is acted on in whatever frame it comes (PROTOCOL.md, *Reading a frame*).
 */
describe('parseServerFrame: a command in any frame', () => {
  const asrReady = { msg_type: 'command', command: 'asr_ready' };

  it.each([
    ['no msg_type', {}],
    ['msg_type asr', { msg_type: 'asr' }],
    ['msg_type tts', { msg_type: 'tts' }],
    ['msg_type command', { msg_type: 'command' }],
    ['an unknown msg_type', { msg_type: 'status' }],
  ])('reads asr_ready on a frame with %s', (_name, frame) => {
    const result = parse({ ...frame, command: 'asr_ready' });
    expect(result.ok && result.messages).toEqual([asrReady]);
  });

  it('reads a quit frame with a command as both, the command first', () => {
    expect(parse({ msg_type: 'quit', command: 'nlp_end', msg_id: 'r-2', text: 'bye' })).toEqual({
      ok: true,
      messages: [
        { msg_type: 'command', command: 'nlp_end', msg_id: 'r-2' },
        { msg_type: 'quit', text: 'bye' },
      ],
      notes: [],
    });
  });

  it('reads a reply part that opens a reply as the command, then the part', () => {
    const result = parse({ msg_type: 'tts', command: 'nlp_running', msg_id: 'r-1', text: 'Hello.', image_url: 'https://example.com/a.png' });
    expect(result.ok && result.messages).toEqual([
      { msg_type: 'command', command: 'nlp_running', msg_id: 'r-1' },
      { msg_type: 'tts', msg_id: 'r-1', text: 'Hello.', image_url: 'https://example.com/a.png' },
    ]);
  });

  it('reads a last part that ends its reply as the part, then the end', () => {
    const result = parse({ msg_type: 'tts', command: 'nlp_end', msg_id: 'r-1', text: 'Goodbye.' });
    expect(result.ok && result.messages.map((m) => m.msg_type)).toEqual(['tts', 'command']);
  });

  it('reads asr_end on the visitor\'s echo as the echo, then the end of the turn', () => {
    const result = parse({ msg_type: 'asr', command: 'asr_end', msg_id: 'u-3', text: 'where is the nearest store' });
    expect(result.ok && result.messages).toEqual([
      { msg_type: 'asr', msg_id: 'u-3', text: 'where is the nearest store' },
      { msg_type: 'command', command: 'asr_end', msg_id: 'u-3' },
    ]);
  });

  it('an empty text beside a command is no reply part', () => {
    expect(parse({ msg_type: 'tts', command: 'nlp_ready', msg_id: 'r-4', text: '' })).toMatchObject({
      ok: true,
      messages: [{ msg_type: 'command', command: 'nlp_ready', msg_id: 'r-4' }],
    });
  });

  it('keeps the content of a frame whose command word is unknown, and says so', () => {
    expect(parse({ msg_type: 'tts', command: 'reboot', msg_id: 'r-5', text: 'Hi.' })).toEqual({
      ok: true,
      messages: [{ msg_type: 'tts', msg_id: 'r-5', text: 'Hi.' }],
      notes: ['unknown command reboot'],
    });
  });

  it('keeps a known command whose content is unusable, and says why', () => {
    expect(parse({ msg_type: 'tts', command: 'nlp_end', msg_id: 'r-6', image_url: 'javascript:alert(1)' })).toEqual({
      ok: true,
      messages: [{ msg_type: 'command', command: 'nlp_end', msg_id: 'r-6' }],
      notes: ['image_url: dropped (not an http(s) URL)', 'tts: no usable content (image_url: dropped (not an http(s) URL))'],
    });
  });
});

describe('encodeClientFrame', () => {
  it('adds the session identity to every frame', () => {
    const frame = JSON.parse(
      encodeClientFrame({ type: 'play', data: { msg_id: 'r-1', state: 'start' } }, { room_id: 'R', app_id: 'A', deviceId: 'D' }),
    ) as unknown;
    expect(frame).toEqual({ type: 'play', data: { msg_id: 'r-1', state: 'start' }, room_id: 'R', app_id: 'A', deviceId: 'D' });
  });
});
