import type { UnknownAction } from '@reduxjs/toolkit';
import { describe, expect, it } from 'vitest';
import { sessionEnded } from '../session/sessionSlice.ts';
import type { ServerMessage } from '../signaling/protocol.ts';
import { messageReceived, sendFailed, sendRequested } from '../signaling/signalingActions.ts';
import {
  chatSlice,
  ownMessageAdded,
  repeatableMarked,
  resendClosed,
  resendOpened,
  resendRequested,
  videoStarted,
  videoStopped,
  type ChatState,
} from './chatSlice.ts';
import { MAX_MESSAGE_TEXT, MAX_MESSAGES, MAX_PARTS, videoKey } from './model.ts';

const reduce = (...actions: UnknownAction[]): ChatState => actions.reduce(chatSlice.reducer, chatSlice.getInitialState());
const rx = (message: ServerMessage) => messageReceived(message);
const tts = (msgId: string, fields: Omit<Extract<ServerMessage, { msg_type: 'tts' }>, 'msg_type' | 'msg_id'>) =>
  rx({ msg_type: 'tts', msg_id: msgId, ...fields });
const cmd = (command: 'nlp_ready' | 'nlp_running' | 'nlp_end', msgId: string, interrupted?: boolean) =>
  rx({ msg_type: 'command', command, msg_id: msgId, ...(interrupted ? { interrupted } : {}) });
const all = (state: ChatState) => state.messages;

describe('chat slice: replies', () => {
  it('merges the parts of one msg_id into one message, in order', () => {
    const state = reduce(
      cmd('nlp_ready', 'r-7'),
      cmd('nlp_running', 'r-7'),
      tts('r-7', { text: 'Our flagship store is at 1 Harbour Road.' }),
      tts('r-7', { image_url: 'http://h/store.png' }),
      tts('r-7', { text: 'It is open every day.' }),
      tts('r-7', { related_qa: ['what are your opening hours'] }),
      cmd('nlp_end', 'r-7'),
    );
    expect(all(state)).toHaveLength(1);
    expect(all(state)[0]).toEqual({
      key: 'ai:r-7',
      msgId: 'r-7',
      fromMe: false,
      type: 'text',
      messageType: 'tts',
      status: 'done',
      msgArr: [
        { type: 'text', content: 'Our flagship store is at 1 Harbour Road.' },
        { type: 'image', content: 'http://h/store.png' },
        { type: 'text', content: 'It is open every day.' },
        { type: 'relatedQa', content: [{ content: 'what are your opening hours' }] },
      ],
    });
  });

  it('a reply is a thinking message from nlp_ready until its second part (spec: fewer than two parts show the dots)', () => {
    let state = reduce(cmd('nlp_ready', 'r1'));
    expect(all(state)[0]).toMatchObject({ type: 'thinking', status: 'thinking', msgArr: [] });
    state = chatSlice.reducer(state, cmd('nlp_running', 'r1'));
    expect(all(state)[0]).toMatchObject({ type: 'thinking', status: 'speaking' });
    state = chatSlice.reducer(state, tts('r1', { text: 'Hi' }));
    expect(all(state)[0]).toMatchObject({ type: 'thinking', status: 'speaking', msgArr: [{ type: 'text', content: 'Hi' }] });
    state = chatSlice.reducer(state, tts('r1', { text: 'there' }));
    expect(all(state)[0]).toMatchObject({ type: 'text', status: 'speaking' });
  });

  it('a one-part reply stops thinking when it ends, done or interrupted', () => {
    expect(all(reduce(cmd('nlp_ready', 'r1'), tts('r1', { text: 'Hi' }), cmd('nlp_end', 'r1')))[0]).toMatchObject({ type: 'text', status: 'done' });
    expect(all(reduce(tts('r1', { text: 'Hi' }), sendRequested({ type: 'break' })))[0]).toMatchObject({ type: 'text', status: 'interrupted' });
  });

  it('creates the reply on its first part when nlp_ready never came', () => {
    const state = reduce(tts('r1', { video_url: 'https://h/v.webm' }));
    expect(all(state)[0]).toMatchObject({ key: 'ai:r1', messageType: 'video', status: 'speaking' });
  });

  it('a reply of suggestions only is a questionPrompt', () => {
    expect(all(reduce(tts('r1', { related_qa: ['a', 'b'] }), cmd('nlp_end', 'r1')))[0]).toMatchObject({ type: 'questionPrompt', messageType: 'relatedQa' });
    expect(all(reduce(tts('r1', { related_qa: ['a'] }), tts('r1', { related_qa: ['b'] })))[0]).toMatchObject({ type: 'questionPrompt' });
  });

  it('a reply that ends without content is done and empty, also when nothing of it came before its nlp_end', () => {
    expect(all(reduce(cmd('nlp_ready', 'r1'), cmd('nlp_end', 'r1')))[0]).toMatchObject({ status: 'done', msgArr: [] });
    expect(all(reduce(cmd('nlp_end', 'r2')))).toEqual([expect.objectContaining({ key: 'ai:r2', fromMe: false, status: 'done', msgArr: [] })]);
    // Cut short by a break before anything came: nothing to show.
    expect(all(reduce(cmd('nlp_end', 'r3', true)))).toEqual([]);
  });

  it('never merges a reply into the visitor message with the same id', () => {
    const state = reduce(ownMessageAdded({ msgId: 'x', text: 'mine' }), tts('x', { text: 'theirs' }));
    expect(all(state).map((m) => [m.key, m.msgArr.length])).toEqual([
      ['me:x', 1],
      ['ai:x', 1],
    ]);
  });

  it('drops non-http(s) URLs even if they got past the parser', () => {
    const state = reduce(tts('r1', { text: 'a', image_url: 'javascript:alert(1)', web_url: 'data:text/html,x' }));
    expect(all(state)[0]!.msgArr).toEqual([{ type: 'text', content: 'a' }]);
  });

  it('keeps at most MAX_PARTS parts and MAX_MESSAGE_TEXT characters per message', () => {
    const actions = Array.from({ length: MAX_PARTS + 50 }, (_, i) => tts('r1', { text: `p${i}` }));
    expect(all(reduce(...actions))[0]!.msgArr).toHaveLength(MAX_PARTS);
    const big = 'x'.repeat(90_000);
    const text = all(reduce(tts('r1', { text: big }), tts('r1', { text: big }), tts('r1', { text: big })))[0]!.msgArr;
    expect(text.reduce((n, p) => n + (p.type === 'text' ? p.content.length : 0), 0)).toBe(MAX_MESSAGE_TEXT);
  });

  it('keeps the newest MAX_MESSAGES messages', () => {
    const actions = Array.from({ length: MAX_MESSAGES + 5 }, (_, i) => tts(`r${i}`, { text: 't' }));
    const state = reduce(...actions);
    expect(state.messages).toHaveLength(MAX_MESSAGES);
    expect(state.messages[0]!.key).toBe('ai:r5');
  });
});

describe('chat slice: interruption', () => {
  it('nlp_end with interrupted marks the reply interrupted', () => {
    const state = reduce(cmd('nlp_ready', 'r1'), tts('r1', { text: 'a' }), cmd('nlp_end', 'r1', true));
    expect(all(state)[0]!.status).toBe('interrupted');
  });

  it('a break interrupts the reply in progress, pauses every video and drops parts still in flight', () => {
    let state = reduce(
      tts('r0', { text: 'old' }),
      cmd('nlp_end', 'r0'),
      cmd('nlp_ready', 'r1'),
      tts('r1', { text: 'a' }),
      videoStarted({ video: videoKey('ai:r0', 1), msgId: 'r0' }),
    );
    state = chatSlice.reducer(state, sendRequested({ type: 'break' }));
    expect(all(state).map((m) => m.status)).toEqual(['done', 'interrupted']);
    expect(state.playingVideo).toBeNull();
    state = chatSlice.reducer(state, tts('r1', { text: 'late' }));
    expect(all(state)[1]!.msgArr).toEqual([{ type: 'text', content: 'a' }]);
    // the server's own nlp_end for it changes nothing
    state = chatSlice.reducer(state, cmd('nlp_end', 'r1'));
    expect(all(state)[1]!.status).toBe('interrupted');
  });

  it('other frames sent do not interrupt', () => {
    const state = reduce(cmd('nlp_ready', 'r1'), sendRequested({ type: 'play', data: { msg_id: 'r1', state: 'start' } }));
    expect(all(state)[0]!.status).toBe('thinking');
  });
});

describe('chat slice: videos', () => {
  const a = { video: videoKey('ai:r1', 0), msgId: 'r1' };
  const b = { video: videoKey('ai:r2', 3), msgId: 'r2' };

  it('one video plays at a time: a newer start takes over; a stale stop changes nothing', () => {
    let state = reduce(videoStarted(a));
    expect(state.playingVideo).toBe(a.video);
    state = chatSlice.reducer(state, videoStarted(b));
    expect(state.playingVideo).toBe(b.video);
    state = chatSlice.reducer(state, videoStopped(a));
    expect(state.playingVideo).toBe(b.video);
    state = chatSlice.reducer(state, videoStopped(b));
    expect(state.playingVideo).toBeNull();
  });
});

describe('chat slice: the visitor', () => {
  it('shows a sent message at once, confirmed (not duplicated) by the asr echo', () => {
    let state = reduce(ownMessageAdded({ msgId: 'm1', text: 'where is the nearest store' }));
    expect(all(state)[0]).toMatchObject({ key: 'me:m1', fromMe: true, status: 'sending' });
    state = chatSlice.reducer(state, rx({ msg_type: 'asr', msg_id: 'm1', text: 'Where is the nearest store?' }));
    expect(all(state)).toHaveLength(1);
    expect(all(state)[0]).toMatchObject({ status: 'sent', msgArr: [{ type: 'text', content: 'where is the nearest store' }] });
  });

  it('a recognized utterance with a new id appears as the visitor message', () => {
    const state = reduce(rx({ msg_type: 'asr', msg_id: 'v1', text: 'tell me about the discount' }), rx({ msg_type: 'asr', msg_id: 'v2', text: '  ' }));
    expect(all(state)).toEqual([
      expect.objectContaining({ key: 'me:v1', fromMe: true, status: 'sent', msgArr: [{ type: 'text', content: 'tell me about the discount' }] }),
    ]);
  });

  it('a send on a closed channel marks that message failed', () => {
    const request = { type: 'message_text', source: 'nlpmsg', text: 'hi', data: { msg_id: 'm1', lang: 'en' } } as const;
    const state = reduce(ownMessageAdded({ msgId: 'm1', text: 'hi' }), sendFailed({ request, reason: 'closed' }), sendFailed({ request: { type: 'break' }, reason: 'closed' }));
    expect(all(state)[0]!.status).toBe('failed');
  });
});

describe('chat slice: resend rules', () => {
  const base = () => reduce(ownMessageAdded({ msgId: 'm1', text: 'one' }), tts('r1', { text: 'answer' }), ownMessageAdded({ msgId: 'm2', text: 'two' }), tts('r2', { text: 'answer' }));

  it('Resend opens for the visitor own messages only, and closes', () => {
    let state = chatSlice.reducer(base(), resendOpened('me:m1'));
    expect(state.resendOpenFor).toBe('me:m1');
    state = chatSlice.reducer(state, resendOpened('ai:r1'));
    expect(state.resendOpenFor).toBeNull();
    state = chatSlice.reducer(chatSlice.reducer(state, resendOpened('me:m2')), resendClosed());
    expect(state.resendOpenFor).toBeNull();
  });

  it('a long press marks only the last visitor message repeatable', () => {
    expect(chatSlice.reducer(base(), repeatableMarked('me:m1')).repeatable).toBeNull();
    expect(chatSlice.reducer(base(), repeatableMarked('ai:r2')).repeatable).toBeNull();
    expect(chatSlice.reducer(base(), repeatableMarked('me:m2')).repeatable).toBe('me:m2');
  });

  it('a resend, or a newer visitor message, clears both affordances', () => {
    const marked = chatSlice.reducer(chatSlice.reducer(base(), repeatableMarked('me:m2')), resendOpened('me:m2'));
    expect(chatSlice.reducer(marked, resendRequested('me:m2'))).toMatchObject({ repeatable: null, resendOpenFor: null });
    expect(chatSlice.reducer(marked, ownMessageAdded({ msgId: 'm3', text: 'x' }))).toMatchObject({ repeatable: null, resendOpenFor: null });
  });
});

it('a session end empties the log', () => {
  expect(reduce(tts('r1', { text: 'a' }), sessionEnded())).toEqual(chatSlice.getInitialState());
});
