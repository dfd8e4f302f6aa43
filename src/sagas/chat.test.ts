import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ownMessageAdded,
  repeatableMarked,
  resendRequested,
  suggestionTapped,
  videoStarted,
  videoStopped,
} from '../features/chat/chatSlice.ts';
import { videoKey } from '../features/chat/model.ts';
import { draftChanged, textSubmitted } from '../features/input/inputSlice.ts';
import { catalogue } from '../features/notices/messages.ts';
import { setupSagas, type Harness } from './testing/harness.ts';
import { goLive } from './testing/live.ts';

let h: Harness;
let ids = 0;

beforeEach(async () => {
  vi.useFakeTimers();
  h = setupSagas();
  ids = 0;
  h.platform.randomUUID.mockImplementation(() => `u-${++ids}`);
  await h.flush();
});

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

const socket = () => h.sockets.at(-1)!;
/** Frames the client sent after joining (offer_2 and say_hello left out). */
const sent = () => socket().sent.filter((f) => f.type !== 'offer_2' && f.type !== 'say_hello');
const chat = () => h.state().chat.messages;
const noticeIds = () => h.state().notices.toasts.map((t) => ('id' in t.message ? t.message.id : t.message.text));

async function server(...frames: unknown[]) {
  for (const frame of frames) socket().serverSend(frame);
  await h.flush();
}

describe('chat saga: sending text', () => {
  it('interrupts first, shows the message at once, sends nlpmsg with the client msg_id, and the asr echo confirms it', async () => {
    await goLive(h);
    h.dispatch(draftChanged('  where is the nearest store  '));
    h.dispatch(textSubmitted('  where is the nearest store  '));
    await h.flush();
    expect(sent()).toEqual([
      { type: 'break', room_id: 'room-1', app_id: expect.any(String), deviceId: expect.any(String) },
      expect.objectContaining({
        type: 'message_text',
        source: 'nlpmsg',
        text: 'where is the nearest store',
        data: { msg_id: 'u-1', lang: h.state().locale.lang },
      }),
    ]);
    expect(chat()).toEqual([expect.objectContaining({ key: 'me:u-1', fromMe: true, status: 'sending' })]);
    expect(h.state().input.draft).toBe('');

    await server({ msg_type: 'asr', msg_id: 'u-1', text: 'where is the nearest store' });
    expect(chat()).toEqual([expect.objectContaining({ key: 'me:u-1', status: 'sent' })]);
  });

  it('sends nothing for empty or whitespace-only text', async () => {
    await goLive(h);
    h.dispatch(textSubmitted(''));
    h.dispatch(textSubmitted(' \n\t '));
    await h.flush();
    expect(sent()).toEqual([]);
    expect(chat()).toEqual([]);
  });

  it('a tapped suggestion goes out the same way', async () => {
    await goLive(h);
    h.dispatch(suggestionTapped('what are your opening hours'));
    await h.flush();
    expect(sent().map((f) => [f.type, f.text])).toEqual([
      ['break', undefined],
      ['message_text', 'what are your opening hours'],
    ]);
    expect(chat()[0]).toMatchObject({ fromMe: true, msgArr: [{ type: 'text', content: 'what are your opening hours' }] });
  });
});

describe('chat saga: resend', () => {
  it('resends a visitor message as a new message, line breaks removed and trimmed', async () => {
    await goLive(h);
    await server({ msg_type: 'asr', msg_id: 'v-1', text: ' tell me about\nthe discount \n' });
    h.dispatch(repeatableMarked('me:v-1'));
    h.dispatch(resendRequested('me:v-1'));
    await h.flush();
    expect(sent().at(-1)).toMatchObject({ type: 'message_text', text: 'tell me aboutthe discount', data: { msg_id: 'u-1' } });
    expect(chat().map((m) => m.key)).toEqual(['me:v-1', 'me:u-1']);
    expect(h.state().chat.repeatable).toBeNull();
  });

  it('refuses to resend anything but the visitor own messages', async () => {
    await goLive(h);
    await server({ msg_type: 'tts', msg_id: 'r-1', text: 'an answer' });
    h.dispatch(resendRequested('ai:r-1'));
    h.dispatch(resendRequested('me:unknown'));
    await h.flush();
    expect(sent()).toEqual([]);
  });

  it('a resend with nothing to send again (a message gone, or without words) says no content replay is available', async () => {
    await goLive(h);
    h.dispatch(ownMessageAdded({ msgId: 'v-1', text: ' \n \n' }));
    h.dispatch(resendRequested('me:v-1'));
    await h.flush();
    expect(sent()).toEqual([]);
    expect(noticeIds()).toEqual([catalogue.noReplay.id]);
    h.dispatch(resendRequested('me:gone'));
    await h.flush();
    expect(sent()).toEqual([]);
    expect(noticeIds()).toEqual([catalogue.noReplay.id, catalogue.noReplay.id]);
  });

  it('an assistant message is refused without the no-replay toast', async () => {
    await goLive(h);
    await server({ msg_type: 'tts', msg_id: 'r-1', text: 'an answer' });
    h.dispatch(resendRequested('ai:r-1'));
    await h.flush();
    expect(noticeIds()).toEqual([]);
  });
});

describe('chat saga: a closed channel', () => {
  it('marks the message failed, puts the text back into the text box and warns; nothing typed is lost', async () => {
    // Not live: the signaling channel was never opened.
    h.dispatch(draftChanged('hello there'));
    h.dispatch(textSubmitted('hello there'));
    await h.flush();
    expect(chat()).toEqual([expect.objectContaining({ key: 'me:u-1', status: 'failed' })]);
    expect(h.state().input.draft).toBe('hello there');
    expect(h.state().notices.toasts.map((t) => t.message)).toEqual([{ id: catalogue.sendWhileClosed.id }]);
  });
});

describe('chat saga: replies and interruption', () => {
  it('shows thinking, merges the reply by msg_id, and a send interrupts it and pauses the playing video', async () => {
    await goLive(h);
    await server(
      { msg_type: 'command', command: 'nlp_ready', msg_id: 'r-9' },
      { msg_type: 'command', command: 'nlp_running', msg_id: 'r-9' },
    );
    expect(chat()).toEqual([expect.objectContaining({ key: 'ai:r-9', type: 'thinking', status: 'speaking' })]);
    await server(
      { msg_type: 'tts', msg_id: 'r-9', text: 'Here are the new arrivals.' },
      { msg_type: 'tts', msg_id: 'r-9', video_url: 'http://127.0.0.1/v.webm' },
      { msg_type: 'tts', msg_id: 'r-9', image_url: 'javascript:alert(1)' },
    );
    expect(chat()[0]!.msgArr.map((p) => p.type)).toEqual(['text', 'video']);
    h.dispatch(videoStarted({ video: videoKey('ai:r-9', 1), msgId: 'r-9' }));

    h.dispatch(textSubmitted('stop'));
    await h.flush();
    expect(h.state().chat.playingVideo).toBeNull();
    expect(chat()[0]!.status).toBe('interrupted');
    await server({ msg_type: 'command', command: 'nlp_end', msg_id: 'r-9', interrupted: true });
    expect(chat()[0]!.status).toBe('interrupted');
  });

  it('reports inline video play start and end with play frames', async () => {
    await goLive(h);
    const video = { video: videoKey('ai:r-1', 0), msgId: 'r-1' };
    h.dispatch(videoStarted(video));
    h.dispatch(videoStopped(video));
    await h.flush();
    expect(sent().map((f) => [f.type, f.data])).toEqual([
      ['play', { msg_id: 'r-1', state: 'start' }],
      ['play', { msg_id: 'r-1', state: 'end' }],
    ]);
  });
});
