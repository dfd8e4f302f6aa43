import { describe, expect, it } from 'vitest';
import { FakeMedia } from '../http/testkit.ts';
import { createLogger } from '../log.ts';
import type { SpeechHandle } from '../rooms.ts';
import { playReply, type ServerFrame, type Speaker } from './player.ts';
import type { ReplyPart } from './reply.ts';

const log = createLogger('test');
const PARTS: ReplyPart[] = [{ text: 'Our store is near. It opens at ten.' }, { image_url: 'http://h/i.png' }, { related_qa: ['q'] }];

function play(speaker: Speaker, parts = PARTS, signal = new AbortController().signal, extra = {}) {
  const frames: ServerFrame[] = [];
  const result = playReply({ msgId: 'r-1', parts, lang: 'en', speaker, send: (f) => frames.push(f), signal, log, ...extra });
  return { frames, result };
}

/** A speaker whose speech starts and ends only when the test says so. */
function manualSpeaker() {
  const calls: { text: string; start: (h: SpeechHandle) => void; fail: (e: Error) => void; end: (r: 'done' | 'interrupted') => void }[] = [];
  const speaker: Speaker = {
    speak: (text) =>
      new Promise<SpeechHandle>((resolve, reject) => {
        let end!: (r: 'done' | 'interrupted') => void;
        const finished = new Promise<'done' | 'interrupted'>((r) => (end = r));
        calls.push({ text, start: () => resolve({ durationMs: 5_000, finished }), fail: reject, end: (r) => end(r) });
      }),
    stopSpeaking: () => {},
  };
  return { speaker, calls };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('playReply', () => {
  it('sends nlp_ready, nlp_running, each part in order, then nlp_end', async () => {
    const media = new FakeMedia({ speechMs: 5 });
    const { frames, result } = play(media);
    expect(await result).toBe('done');
    expect(frames).toEqual([
      { msg_type: 'command', command: 'nlp_ready', msg_id: 'r-1' },
      { msg_type: 'command', command: 'nlp_running', msg_id: 'r-1' },
      { msg_type: 'tts', msg_id: 'r-1', text: 'Our store is near.' },
      { msg_type: 'tts', msg_id: 'r-1', text: 'It opens at ten.' },
      { msg_type: 'tts', msg_id: 'r-1', image_url: 'http://h/i.png' },
      { msg_type: 'tts', msg_id: 'r-1', related_qa: ['q'] },
      { msg_type: 'command', command: 'nlp_end', msg_id: 'r-1' },
    ]);
    expect(media.spoken).toEqual([
      { text: 'Our store is near.', lang: 'en' },
      { text: 'It opens at ten.', lang: 'en' },
    ]);
  });

  it('sends a sentence only when its speech starts, and the next one after it ends', async () => {
    const { speaker, calls } = manualSpeaker();
    const { frames } = play(speaker);
    await tick();
    expect(frames.map((f) => f.command ?? f.text)).toEqual(['nlp_ready']);
    calls[0]!.start({} as SpeechHandle);
    await tick();
    expect(frames.at(-1)).toMatchObject({ text: 'Our store is near.' });
    expect(calls).toHaveLength(1);
    calls[0]!.end('done');
    await tick();
    expect(calls[1]!.text).toBe('It opens at ten.');
  });

  it('goes quiet when aborted: no more parts and no nlp_end (the aborter ends the reply)', async () => {
    const { speaker, calls } = manualSpeaker();
    const abort = new AbortController();
    const { frames, result } = play(speaker, PARTS, abort.signal);
    await tick();
    calls[0]!.start({} as SpeechHandle);
    await tick();
    const sent = frames.length;
    abort.abort();
    expect(await result).toBe('aborted');
    calls[0]!.end('interrupted');
    await tick();
    expect(frames).toHaveLength(sent);
  });

  it('ends with interrupted: true when the media pipeline cuts the speech', async () => {
    const media = new FakeMedia({ speechMs: 1_000 });
    const { frames, result } = play(media);
    await tick();
    media.stopSpeaking();
    expect(await result).toBe('interrupted');
    expect(frames.at(-1)).toEqual({ msg_type: 'command', command: 'nlp_end', msg_id: 'r-1', interrupted: true });
    expect(frames.some((f) => 'image_url' in f)).toBe(false);
  });

  it('still sends the text when speech fails or does not start in time', async () => {
    const failing: Speaker = { speak: () => Promise.reject(new Error('espeak missing')), stopSpeaking: () => {} };
    const a = play(failing);
    expect(await a.result).toBe('done');
    expect(a.frames.filter((f) => typeof f.text === 'string')).toHaveLength(2);

    const stuck: Speaker = { speak: () => new Promise<SpeechHandle>(() => {}), stopSpeaking: () => {} };
    const b = play(stuck, [{ text: 'Hello.' }], new AbortController().signal, { startTimeoutMs: 20 });
    expect(await b.result).toBe('done');
    expect(b.frames.map((f) => f.command ?? f.text)).toEqual(['nlp_ready', 'nlp_running', 'Hello.', 'nlp_end']);
  });

  it('sends media-only replies at once with nlp_running first', async () => {
    const { frames, result } = play(new FakeMedia(), [{ web_url: 'http://h/p.html' }]);
    expect(await result).toBe('done');
    expect(frames.map((f) => f.command ?? f.web_url)).toEqual(['nlp_ready', 'nlp_running', 'http://h/p.html', 'nlp_end']);
  });

  it('speaks Chinese sentences with the Chinese voice', async () => {
    const media = new FakeMedia({ speechMs: 1 });
    await play(media, [{ text: '您好。欢迎光临！' }]).result;
    expect(media.spoken).toEqual([
      { text: '您好。', lang: 'zh' },
      { text: '欢迎光临！', lang: 'zh' },
    ]);
  });
});
