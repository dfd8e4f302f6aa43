import { describe, expect, it } from 'vitest';
import { avatarEcho, ECHO_TAIL_MS, isEchoOf, wordsOf } from './echo.ts';

const REPLY = 'Our nearest store is the flagship store at one Harbour Road, next to Central Station.';

describe('wordsOf', () => {
  it('splits on spaces and punctuation, lower case', () => {
    expect(wordsOf('Where is the nearest store?')).toEqual(['where', 'is', 'the', 'nearest', 'store']);
  });

  it('takes Chinese and Japanese one character at a time, Korean by its spaces', () => {
    expect(wordsOf('最近的门店')).toEqual(['最', '近', '的', '门', '店']);
    expect(wordsOf('営業時間は？')).toEqual(['営', '業', '時', '間', 'は']);
    expect(wordsOf('가장 가까운 매장')).toEqual(['가장', '가까운', '매장']);
  });
});

describe('isEchoOf', () => {
  it('takes the avatar\'s own words, heard back, as echo', () => {
    expect(isEchoOf('the flagship store at one harbour road', [REPLY])).toBe(true);
    expect(isEchoOf('next to central station', ['Something else.', REPLY])).toBe(true);
  });

  it('takes a different question, even one that shares a few words, as the visitor speaking', () => {
    expect(isEchoOf('what are your opening hours', [REPLY])).toBe(false);
    expect(isEchoOf('tell me about the discount at the store', [REPLY])).toBe(false);
    // Most of its words are the reply's, in another order: a follow-up question, not echo.
    expect(isEchoOf('where is the nearest store', [REPLY])).toBe(false);
  });

  it('takes one word the avatar said as echo, and one it did not as the visitor', () => {
    expect(isEchoOf('Harbour', [REPLY])).toBe(true);
    expect(isEchoOf('stop', [REPLY])).toBe(false);
  });

  it('does not join the end of one reply to the start of the next', () => {
    expect(isEchoOf('road hello', ['At one Harbour Road.', 'Hello there.'])).toBe(false);
  });

  it('judges Chinese by characters', () => {
    expect(isEchoOf('最近的门店在哪里', ['我们的营业时间是每天上午十点到晚上九点。'])).toBe(false);
    expect(isEchoOf('营业时间是每天上午十点', ['我们的营业时间是每天上午十点到晚上九点。'])).toBe(true);
  });

  it('with nothing said by the avatar, nothing is echo; an empty phrase is never sent', () => {
    expect(isEchoOf('where is the nearest store', [])).toBe(false);
    expect(isEchoOf(' ... ', [REPLY])).toBe(true);
  });
});

describe('avatarEcho', () => {
  const ECHO = 'the flagship store at one harbour road';
  const VISITOR = 'what time do you open';
  const stopped = (gated: boolean) => ({ speaking: false, spokeAt: 10_000, gated });
  const within = 10_000 + ECHO_TAIL_MS - 1;
  const after = 10_000 + ECHO_TAIL_MS;

  it('a stray phrase (detection listened, heard no sentence): with the echo gate, anything within ECHO_TAIL_MS of the avatar is echo; otherwise its words decide', () => {
    expect(avatarEcho('stray', VISITOR, within, stopped(true), [REPLY])).toBe('gate');
    expect(avatarEcho('stray', VISITOR, after, stopped(true), [REPLY])).toBeNull();
    expect(avatarEcho('stray', ECHO, after, stopped(true), [REPLY])).toBe('words');
    expect(avatarEcho('stray', ECHO, within, stopped(false), [REPLY])).toBe('words');
    expect(avatarEcho('stray', VISITOR, within, { ...stopped(false), speaking: true }, [REPLY])).toBeNull();
  });

  it('the hand-over (only the recognizer heard it): within ECHO_TAIL_MS the avatar\'s words are echo, gate or not; after it, nothing is', () => {
    expect(avatarEcho('handOver', ECHO, within, stopped(true), [REPLY])).toBe('words');
    expect(avatarEcho('handOver', VISITOR, within, stopped(true), [REPLY])).toBeNull();
    expect(avatarEcho('handOver', ECHO, after, stopped(false), [REPLY])).toBeNull();
    expect(avatarEcho('handOver', ECHO, after + 60_000, { ...stopped(false), speaking: true }, [REPLY])).toBe('words');
  });
});
