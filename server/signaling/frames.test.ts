import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, parseClientFrame } from './frames.ts';

const base = { room_id: 'room_1', app_id: 'a', deviceId: 'H5x' };
const parse = (frame: unknown) => parseClientFrame(typeof frame === 'string' ? frame : JSON.stringify(frame));

describe('parseClientFrame', () => {
  it('parses every client type of PROTOCOL.md', () => {
    expect(parse({ ...base, type: 'offer_2' })).toMatchObject({ ok: true, frame: { type: 'offer_2', roomId: 'room_1' } });
    expect(parse({ ...base, type: 'say_hello', data: { lang: 'zh' } })).toMatchObject({ ok: true, frame: { type: 'say_hello', lang: 'zh' } });
    expect(parse({ ...base, type: 'message_text', source: 'nlpmsg', text: ' hi ', data: { msg_id: 'm1', lang: 'en' } })).toMatchObject({
      ok: true,
      frame: { type: 'message_text', source: 'nlpmsg', text: 'hi', msgId: 'm1', endPoint: false },
    });
    expect(parse({ ...base, type: 'message_text', source: 'asrcallback', text: 'hi', end_point: true, data: { msg_id: 7 } })).toMatchObject({
      ok: true,
      frame: { source: 'asrcallback', msgId: '7', endPoint: true },
    });
    expect(parse({ ...base, type: 'break' })).toMatchObject({ ok: true, frame: { type: 'break' } });
    expect(parse({ ...base, type: 'play', data: { msg_id: 'r-1', state: 'start' } })).toMatchObject({ ok: true, frame: { type: 'play', state: 'start' } });
    expect(parse({ ...base, type: 'close_webrtc' })).toMatchObject({ ok: true, frame: { type: 'close_webrtc' } });
  });

  it.each([
    ['{not json', 'not valid JSON'],
    ['[1]', 'a frame must be a JSON object'],
    ['null', 'a frame must be a JSON object'],
    ['{"type":5}', 'a frame needs a string "type"'],
    ['{"type":"dance"}', 'unknown type: dance'],
    ['{"type":"offer_2"}', 'offer_2: room_id required'],
    [`{"type":"offer_2","room_id":"${'r'.repeat(201)}"}`, 'offer_2: room_id too long (max 200 characters)'],
    ['{"type":"message_text","source":"x","text":"a","data":{"msg_id":"m"}}', 'message_text: source must be "nlpmsg" or "asrcallback"'],
    ['{"type":"message_text","source":"nlpmsg","text":"a"}', 'message_text: data.msg_id required'],
    ['{"type":"message_text","source":"nlpmsg","text":"  ","data":{"msg_id":"m"}}', 'message_text: text must not be empty'],
    ['{"type":"message_text","source":"nlpmsg","text":{},"data":{"msg_id":"m"}}', 'message_text: text must be a string'],
    ['{"type":"play","data":{"msg_id":"m","state":"pause"}}', 'play: data.state must be "start" or "end"'],
  ])('refuses %s with a clear error', (raw, error) => {
    expect(parse(raw)).toMatchObject({ ok: false, error });
  });

  it('truncates text longer than 100,000 characters', () => {
    const result = parse({ type: 'message_text', source: 'nlpmsg', text: 'a'.repeat(MAX_TEXT_CHARS + 50), data: { msg_id: 'm' } });
    expect(result.ok && result.frame.type === 'message_text' && result.frame.text.length).toBe(MAX_TEXT_CHARS);
  });

  it('accepts an empty partial hypothesis from asrcallback', () => {
    expect(parse({ type: 'message_text', source: 'asrcallback', text: '', data: { msg_id: 'm' } })).toMatchObject({ ok: true });
  });
});
