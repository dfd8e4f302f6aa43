import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalogue } from '../../notices/messages.ts';
import { endRequested, startRequested, videoCanPlay, videoPlaying } from '../../session/sessionSlice.ts';
import { partialRecognized, sentenceRecognized } from '../voiceSlice.ts';
import { setupSagas, type Harness } from '../../../sagas/testing/harness.ts';
import { liveVoiceHarness } from './testing/harness.ts';
import { ASR_END_TIMEOUT_MS } from './turn.ts';

let task: Harness['task'] | null = null;

afterEach(() => {
  task?.cancel();
  task = null;
  vi.useRealTimers();
});

/** The voice-turn frames sent so far, as steps: the final wording, nlpmsg, end_point. */
function steps(h: Awaited<ReturnType<typeof liveVoiceHarness>>): string[] {
  return h
    .sentOf('message_text')
    .map((f) => (f.source === 'nlpmsg' ? `nlpmsg:${String(f.text)}` : f.end_point === true ? `end_point:${String(f.text)}` : `partial:${String(f.text)}`));
}

describe('voice turn', () => {
  it("goes in the specification's order: the final wording, then after asr_end the nlpmsg and the end_point", async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    h.dispatch(sentenceRecognized({ msgId: 'v-7', text: ' show me the new products ' }));
    await h.flush();
    expect(steps(h)).toEqual(['partial:show me the new products']);
    await h.advance(ASR_END_TIMEOUT_MS - 1);
    expect(steps(h)).toEqual(['partial:show me the new products']);
    await h.server({ msg_type: 'command', command: 'asr_end', msg_id: 'v-7', text: 'show me the new products' });
    expect(steps(h)).toEqual(['partial:show me the new products', 'nlpmsg:show me the new products', 'end_point:show me the new products']);
    expect(h.sentOf('message_text', 'nlpmsg')).toEqual([expect.objectContaining({ data: { msg_id: 'v-7', lang: 'en' } })]);
    expect(h.sentOf('message_text', 'asrcallback').at(-1)).toEqual(expect.objectContaining({ end_point: true, data: { msg_id: 'v-7', lang: 'en' } }));
  });

  it("a reply that began while the turn waited for asr_end (to the visitor's question before) is interrupted before the nlpmsg goes up", async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    h.dispatch(sentenceRecognized({ msgId: 'v-7', text: 'show me the new products' }));
    await h.flush();
    await h.server({ msg_type: 'command', command: 'nlp_ready', msg_id: 'r-6' });
    expect(h.sentOf('break')).toEqual([]);
    await h.server({ msg_type: 'command', command: 'asr_end', msg_id: 'v-7', text: 'show me the new products' });
    const order = h.sent().map((f) => (f.type === 'break' ? 'break' : `${String(f.source)}`));
    expect(order).toEqual(['asrcallback', 'break', 'nlpmsg', 'asrcallback']);
  });

  it('without an asr_end from the server, the nlpmsg and the end_point still go after 3 s', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    h.dispatch(sentenceRecognized({ msgId: 'v-7', text: 'show me the new products' }));
    await h.flush();
    await h.advance(ASR_END_TIMEOUT_MS - 1);
    expect(h.sentOf('message_text', 'nlpmsg')).toEqual([]);
    await h.advance(1);
    expect(steps(h)).toEqual(['partial:show me the new products', 'nlpmsg:show me the new products', 'end_point:show me the new products']);
  });

  it('a call\'s partials go up once each; the final wording is not repeated when the last partial already said it', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    for (const text of ['where', 'where is', 'where is', 'where is the nearest store']) h.dispatch(partialRecognized({ msgId: 'v-3', text, mode: 'call' }));
    h.dispatch(sentenceRecognized({ msgId: 'v-3', text: 'where is the nearest store' }));
    await h.flush();
    expect(steps(h)).toEqual(['partial:where', 'partial:where is', 'partial:where is the nearest store']);
  });

  it('an asr_end that comes before the sentence ends the partials, and the sentence then goes at once', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    h.dispatch(partialRecognized({ msgId: 'v-4', text: 'what are', mode: 'call' }));
    await h.flush();
    await h.server({ msg_type: 'command', command: 'asr_end', msg_id: 'v-4', text: 'what are' });
    h.dispatch(partialRecognized({ msgId: 'v-4', text: 'what are your', mode: 'call' }));
    h.dispatch(sentenceRecognized({ msgId: 'v-4', text: 'what are your opening hours' }));
    await h.flush();
    expect(steps(h)).toEqual(['partial:what are', 'nlpmsg:what are your opening hours', 'end_point:what are your opening hours']);
  });

  it('held to talk, no partial goes up before the release; the sentence does', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    h.dispatch(partialRecognized({ msgId: 'v-5', text: 'tell me', mode: 'hold' }));
    await h.flush();
    expect(steps(h)).toEqual([]);
    h.dispatch(sentenceRecognized({ msgId: 'v-5', text: 'tell me about the discount' }));
    await h.flush();
    expect(steps(h)).toEqual(['partial:tell me about the discount']);
  });

  it('an asr_end for another turn does not release this one', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    h.dispatch(sentenceRecognized({ msgId: 'v-7', text: 'hello' }));
    await h.flush();
    await h.server({ msg_type: 'command', command: 'asr_end', msg_id: 'v-6', text: 'hello' });
    expect(h.sentOf('message_text', 'nlpmsg')).toEqual([]);
  });

  it('while the channel reconnects the sentence is held, then sent on the new socket once it is back (R117)', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    const before = h.sockets.length;
    h.sockets.at(-1)!.serverClose(1006);
    await h.flush();
    h.dispatch(sentenceRecognized({ msgId: 'v-8', text: 'where is the nearest store' }));
    await h.flush();
    expect(h.state().chat.messages).toEqual([expect.objectContaining({ key: 'me:v-8', status: 'sending' })]);
    expect(h.noticeIds()).not.toContain(catalogue.sendWhileClosed.id);
    await h.advance(500);
    expect(h.sockets).toHaveLength(before + 1);
    expect(h.sockets.at(-1)!.sent).toContainEqual(expect.objectContaining({ type: 'message_text', text: 'where is the nearest store' }));
  });
});

describe('voice assets', () => {
  it('are prefetched once the first avatar video plays: never on the pre-session screen, nor during the start', async () => {
    vi.useFakeTimers();
    const h = setupSagas();
    task = h.task;
    await h.flush();
    expect(h.state().account.status).toBe('valid');
    expect(h.voice.prefetch).not.toHaveBeenCalled();
    h.dispatch(startRequested());
    await h.flush();
    expect(h.voice.prefetch).not.toHaveBeenCalled();
    h.dispatch(videoCanPlay());
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.voice.prefetch).toHaveBeenCalledTimes(1);
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.voice.prefetch).toHaveBeenCalledTimes(1);
  });

  it('then the voice detector is loaded for the calls of the session, and released when it ends', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness();
    task = h.task;
    expect(h.voice.prefetch).toHaveBeenCalledTimes(1);
    expect(h.voice.warmDetector).toHaveBeenCalledTimes(1);
    h.dispatch(videoPlaying());
    await h.flush();
    expect(h.voice.warmDetector).toHaveBeenCalledTimes(1);
    expect(h.voice.releaseDetector).not.toHaveBeenCalled();
    h.dispatch(endRequested());
    await h.flush();
    expect(h.voice.releaseDetector).toHaveBeenCalledTimes(1);
  });

  it('an account that cannot make calls loads no voice detector', async () => {
    vi.useFakeTimers();
    const h = await liveVoiceHarness({ asr: false });
    task = h.task;
    expect(h.voice.prefetch).toHaveBeenCalledTimes(1);
    expect(h.voice.warmDetector).not.toHaveBeenCalled();
  });
});
