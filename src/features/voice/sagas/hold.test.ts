import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callRequested, modeSwitched } from '../../input/inputSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import { endRequested } from '../../session/sessionSlice.ts';
import { holdAborted, holdPressed, holdReleased, holdSlid } from '../voiceSlice.ts';
import { liveVoiceHarness, type VoiceHarness } from './testing/harness.ts';
import { HOLD_DRAIN_MS, PRESS_DEBOUNCE_MS } from './hold.ts';
import { NO_AUDIO_MS } from './resources.ts';

let h: VoiceHarness;

beforeEach(async () => {
  vi.useFakeTimers();
  h = await liveVoiceHarness();
  h.dispatch(modeSwitched('speak'));
});

afterEach(() => {
  h.task.cancel();
  vi.useRealTimers();
});

const voice = () => h.voice;
const chat = () => h.state().chat.messages;

/** Press, let the microphone and the recognizer start. */
async function press() {
  h.dispatch(holdPressed());
  await h.flush();
}

async function release() {
  h.dispatch(holdReleased());
  await h.flush();
}

describe('hold to talk: pressing', () => {
  it('interrupts the avatar and opens the microphone within the press itself, then starts recognition', async () => {
    await h.server({ msg_type: 'command', command: 'nlp_running', msg_id: 'r-1' });
    h.dispatch(holdPressed());
    // No await in between: getUserMedia and the AudioContext start inside the gesture.
    expect(voice().startPipeline).toHaveBeenCalledTimes(1);
    // The finger marks the sentence: no voice detection (no VAD worker or model) for a press.
    expect(voice().startPipeline).toHaveBeenCalledWith(expect.objectContaining({ detectVoice: false }));
    expect(h.state().voice.hold).toBe('recording');
    await h.flush();
    expect(h.sentOf('break')).toHaveLength(1);
    expect(voice().createRecognizer).toHaveBeenCalledWith({ lang: 'en', key: 'k', region: 'r', segmentationSilenceMs: 1000 });
    expect(voice().recognizer().start).toHaveBeenCalled();
    expect(h.state().voice.avatar).toBe('idle');
  });

  it('keeps the audio heard before the recognizer connected and gives it to the recognizer', async () => {
    voice().plan.recognizer = 'manual';
    await press();
    voice().pipeline().pcm(3);
    voice().resolveRecognizer();
    await h.flush();
    voice().pipeline().pcm(1);
    expect(voice().recognizer().writes).toBe(4);
  });

  it('ignores a press while a call is starting: one microphone capture at a time', async () => {
    h.dispatch(modeSwitched('speak'));
    voice().plan.pipeline = 'manual';
    h.dispatch(callRequested());
    await h.flush();
    expect(h.state().voice.call).toBe('entering');
    h.dispatch(holdPressed());
    await h.flush();
    expect(voice().startPipeline).toHaveBeenCalledTimes(1);
    expect(h.state().voice.hold).toBe('idle');
  });

  it('and the other way round: Start call tapped during a hold starts no call', async () => {
    await press();
    expect(h.state().voice.hold).toBe('recording');
    h.dispatch(callRequested());
    await h.flush();
    expect(voice().startPipeline).toHaveBeenCalledTimes(1);
    expect(h.state().voice.call).toBe('off');
  });

  it('ignores a press within 300 ms of the last hold, and takes one after that', async () => {
    await press();
    await release();
    h.dispatch(holdPressed());
    await h.flush();
    expect(voice().startPipeline).toHaveBeenCalledTimes(1);
    expect(h.state().voice.hold).toBe('idle');
    await release();

    await h.advance(PRESS_DEBOUNCE_MS);
    await press();
    expect(voice().startPipeline).toHaveBeenCalledTimes(2);
    expect(h.sentOf('break')).toHaveLength(2);
  });

  it('shows the words heard so far, and keeps them on the device until the release', async () => {
    await press();
    voice().recognizer().partial('where is');
    await h.flush();
    expect(h.state().voice.hypothesis).toBe('where is');
    // Sliding up may still cancel them: no asrcallback partial goes up while holding.
    expect(h.sentOf('message_text')).toEqual([]);
  });
});

describe('hold to talk: releasing', () => {
  it('sends the phrases recognized, the last one awaited after the audio ends, as a voice turn', async () => {
    await press();
    voice().pipeline().pcm(20);
    voice().recognizer().final('where is the');
    voice().recognizer().finalOnDrain = 'nearest store';
    await release();
    expect(voice().pipeline().stopped).toBe(true);
    expect(voice().recognizer().stops).toEqual([{ drainMs: HOLD_DRAIN_MS }]);
    const text = 'where is the nearest store';
    expect(chat()).toEqual([expect.objectContaining({ key: 'me:v-1', fromMe: true, status: 'sending', msgArr: [{ type: 'text', content: text }] })]);
    expect(h.sentOf('message_text')).toEqual([expect.objectContaining({ source: 'asrcallback', end_point: false, text })]);

    await h.server({ msg_type: 'command', command: 'asr_end', msg_id: 'v-1', text });
    expect(h.sentOf('message_text').slice(1)).toEqual([
      expect.objectContaining({ source: 'nlpmsg', text, data: { msg_id: 'v-1', lang: 'en' } }),
      expect.objectContaining({ source: 'asrcallback', end_point: true, text }),
    ]);
    await h.server({ msg_type: 'asr', msg_id: 'v-1', text });
    expect(chat()[0]!.status).toBe('sent');
  });

  it('cancels after sliding up: nothing is sent and everything is released', async () => {
    await press();
    voice().pipeline().pcm(20);
    voice().recognizer().final('where is the nearest store');
    h.dispatch(holdSlid(true));
    expect(h.state().voice.willCancel).toBe(true);
    await release();
    expect(h.sentOf('message_text')).toEqual([]);
    expect(chat()).toEqual([]);
    expect(h.noticeIds()).toEqual([]);
    expect(voice().pipeline().stopped).toBe(true);
    expect(voice().recognizer().stops).toEqual([{ drainMs: 0 }]);
    expect(voice().recognizer().listenerCount()).toBe(0);
  });

  it('sends after sliding up and back down again', async () => {
    await press();
    voice().pipeline().pcm(20);
    voice().recognizer().final('tell me about the discount');
    h.dispatch(holdSlid(true));
    h.dispatch(holdSlid(false));
    await release();
    expect(h.sentOf('message_text')).toEqual([expect.objectContaining({ text: 'tell me about the discount' })]);
  });

  it('shows the no-voice toast and sends nothing when nothing was recognized', async () => {
    await press();
    voice().pipeline().pcm(10);
    await release();
    expect(h.noticeIds()).toEqual([catalogue.noVoice.id]);
    expect(h.sentOf('message_text')).toEqual([]);
    expect(chat()).toEqual([]);
  });

  it('a release before the microphone delivered any audio shows the no-voice toast at once', async () => {
    voice().plan.pipeline = 'manual';
    await press();
    await release();
    expect(h.noticeIds()).toEqual([catalogue.noVoice.id]);
    expect(voice().pipeline().stopped).toBe(true);
    expect(voice().recognizer().stopped).toBe(true);
  });

  it('recording starts while the microphone pipeline is still loading its voice detector', async () => {
    voice().plan.pipeline = 'manual';
    await press();
    voice().pipeline().pcm(4);
    voice().recognizer().finalOnDrain = 'where is the nearest store';
    await release();
    expect(h.sentOf('message_text')).toEqual([expect.objectContaining({ text: 'where is the nearest store' })]);
  });

  it('a gesture taken away (pointercancel) cancels like sliding up', async () => {
    await press();
    voice().recognizer().final('hello');
    h.dispatch(holdAborted());
    await h.flush();
    expect(h.sentOf('message_text')).toEqual([]);
    expect(voice().pipeline().stopped).toBe(true);
  });

  it('switching away from speak mode while holding cancels the hold: nothing is sent, no toast, everything released', async () => {
    await press();
    voice().pipeline().pcm(20);
    voice().recognizer().final('where is the nearest store');
    voice().recognizer().finalOnDrain = 'tell me about the discount';
    // The keyboard/voice toggle tapped with the other finger while the button is held.
    h.dispatch(modeSwitched('keyboard'));
    await h.flush();
    expect(h.state().voice.hold).toBe('idle');
    expect(voice().pipeline().stopped).toBe(true);
    expect(voice().recognizer().stops).toEqual([{ drainMs: 0 }]);
    // The finger lifts off the button, which is gone by now; and the words still arriving change nothing.
    await release();
    await h.advance(HOLD_DRAIN_MS + 3000);
    expect(h.sentOf('message_text')).toEqual([]);
    expect(chat()).toEqual([]);
    expect(h.noticeIds()).toEqual([]);
    expect(voice().startPipeline).toHaveBeenCalledTimes(1);
  });

  it('a release before the recognizer connected still sends what was said', async () => {
    voice().plan.recognizer = 'manual';
    await press();
    voice().pipeline().pcm(5);
    await release();
    expect(voice().pipeline().stopped).toBe(true);
    voice().resolveRecognizer();
    voice().recognizer().finalOnDrain = 'show me the new products';
    await h.flush();
    expect(voice().recognizer().writes).toBe(5);
    expect(h.sentOf('message_text')).toEqual([expect.objectContaining({ text: 'show me the new products' })]);
  });
});

describe('hold to talk: refusals and failures', () => {
  it('a denied microphone shows how to allow it and marks recording as disabled', async () => {
    voice().plan.pipeline = 'denied';
    await press();
    expect(h.noticeIds()).toEqual([catalogue.micPermissionDisabled.id]);
    expect(h.state().voice).toMatchObject({ micDenied: true, hold: 'idle' });
    expect(voice().recognizer().stopped).toBe(true);
  });

  it('a microphone request that fails without being refused says the voice permission could not be obtained', async () => {
    voice().plan.pipeline = 'permission';
    await press();
    expect(h.noticeIds()).toEqual([catalogue.voicePermissionFailed.id]);
    expect(h.state().voice).toMatchObject({ micDenied: false, hold: 'idle' });
    expect(voice().recognizer().stopped).toBe(true);
  });

  it('a microphone that opened but gives no audio within NO_AUDIO_MS: "unable to record sound", the hold ends and nothing is sent', async () => {
    await press();
    await h.advance(NO_AUDIO_MS - 1);
    expect(h.noticeIds()).toEqual([]);
    expect(h.state().voice.hold).toBe('recording');
    await h.advance(1);
    expect(h.noticeIds()).toEqual([catalogue.cannotRecord.id]);
    expect(h.state().voice.hold).toBe('idle');
    expect(voice().pipeline().stopped).toBe(true);
    expect(voice().recognizer().stopped).toBe(true);
    await release();
    expect(h.sentOf('message_text')).toEqual([]);
    expect(h.noticeIds()).toEqual([catalogue.cannotRecord.id]);
  });

  it('a long hold whose microphone gives audio is not cut off', async () => {
    await press();
    voice().pipeline().pcm(1);
    await h.advance(NO_AUDIO_MS * 3);
    voice().recognizer().finalOnDrain = 'where is the nearest store';
    await release();
    expect(h.noticeIds()).toEqual([]);
    expect(h.sentOf('message_text')).toEqual([expect.objectContaining({ text: 'where is the nearest store' })]);
  });

  it('the session ending while holding releases the microphone and the recognizer', async () => {
    await press();
    h.dispatch(endRequested());
    await h.flush();
    expect(voice().pipeline().stopped).toBe(true);
    expect(voice().recognizer().stopped).toBe(true);
    expect(h.state().voice.hold).toBe('idle');
  });
});

describe('hold to talk: the words for a recognition failure (R119)', () => {
  it('a speech service that cannot be reached while holding says so, not the account\'s settings', async () => {
    await press();
    voice().recognizer().fail('Unable to contact server', true);
    await h.flush();
    expect(h.noticeIds()).toEqual([catalogue.speechUnreachable.id]);
    expect(h.state().voice.hold).toBe('idle');
  });

  it('refused speech settings while holding still say asr配置失败', async () => {
    await press();
    voice().recognizer().fail('Authentication failed', false);
    await h.flush();
    expect(h.noticeIds()).toEqual([catalogue.asrConfigFailed.id]);
  });

  it('a service lost after the release, with no words, says it cannot be reached instead of "no voice"', async () => {
    await press();
    voice().pipeline().pcm(3);
    voice().recognizer().failOnDrain = { connectionLost: true };
    await release();
    await h.advance(HOLD_DRAIN_MS);
    expect(h.noticeIds()).toEqual([catalogue.speechUnreachable.id]);
    expect(h.sentOf('message_text')).toEqual([]);
  });
});

describe('hold to talk: an account without speech settings', () => {
  it('shows the asr配置失败 alert and does not open the microphone', async () => {
    h.task.cancel();
    h = await liveVoiceHarness({ asr: false });
    h.dispatch(modeSwitched('speak'));
    await press();
    expect(h.noticeIds()).toEqual([catalogue.asrConfigFailed.id]);
    expect(h.voice.startPipeline).not.toHaveBeenCalled();
    expect(h.sentOf('break')).toEqual([]);
  });
});
