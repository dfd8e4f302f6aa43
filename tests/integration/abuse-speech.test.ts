/**
 * Recognition one device cannot starve (issue 53): on a real stand-in (server/main.ts as a
 * child process, pocketsphinx), one connection floods the speech service with a 1 MB message
 * of noise bursts under a short segmentation silence (before the bound, about a hundred
 * decodes queued, and a visitor's decode on another connection timed out behind them), and a
 * second sends as much noise as its burst allows at once, while a visitor's Speech SDK
 * streams a real question at real time. The mechanism is asserted, not a duration: the first
 * connection is closed for its pace (1008), the second's decodes beyond its queue are refused
 * (decode.skipped), and the visitor's phrase arrives with its text. The visitor's time is
 * printed, for the record.
 */
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { makeBinaryFrame, makeTextFrame } from '../../server/speech/frames.ts';
import { ensureFixtures, fixturePcm, silence } from '../../server/speech/testing.ts';
import { makeWav } from '../../server/speech/wav.ts';
import { startAbuseStandin, type AbuseStandin } from '../support/abuseStandin.ts';

const PATH = '/speech/recognition/conversation/cognitiveservices/v1';
const KEY = 'demo-speech-key';

let t: AbuseStandin;
beforeAll(async () => {
  ensureFixtures();
  t = await startAbuseStandin();
}, 120_000);
afterAll(() => t?.stop());

/** 16 kHz 16-bit noise bursts the endpointer takes for utterances: 150 ms of noise, 150 ms of silence. */
function noiseBursts(bytes: number): Buffer {
  const out = Buffer.alloc(bytes - (bytes % 2));
  let seed = 53;
  for (let i = 0; i < out.length / 2; i++) {
    if (i % 4800 >= 2400) continue; // the silent half of each 300 ms
    seed = (seed * 1103515245 + 12345) >>> 0;
    out.writeInt16LE(((seed >>> 16) % 16000) - 8000, i * 2);
  }
  return out;
}

/** A raw recognition socket from another address, as another device would open it; its closing code and reason. */
async function flood(from: string, requestId: string, audioBytes: number): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const url = `${t.standin.url.replace('http', 'ws')}${PATH}?language=en-US&segmentationSilenceTimeoutMs=100&Ocp-Apim-Subscription-Key=${KEY}`;
  const ws = new WebSocket(url, { localAddress: from });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const done = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.send(makeTextFrame('speech.config', requestId, '{}'));
  ws.send(makeBinaryFrame('audio', requestId, makeWav(Buffer.alloc(0))));
  ws.send(makeBinaryFrame('audio', requestId, noiseBursts(audioBytes)));
  return { ws, closed: done };
}

describe('speech recognition under a flood from another device', () => {
  it("a 1 MB flood is closed for its pace, a burst's decodes are queued no further than the bound, and the visitor's question is recognized", async () => {
    const before = ((await (await fetch(`${t.standin.url}/__standin/events`)).json()) as unknown[]).length;
    // About 31 s of audio at once, under the 1 MB message limit.
    const big = await flood('127.0.0.2', 'A'.repeat(32), 1_000_000);
    // 19 s at once, within the burst a reconnecting SDK may send: about 60 utterances.
    const burst = await flood('127.0.0.3', 'B'.repeat(32), 19 * 32_000);
    onTestFinished(() => {
      big.ws.terminate();
      burst.ws.terminate();
    });

    const config = sdk.SpeechConfig.fromHost(new URL(t.standin.url.replace('http', 'ws')), KEY);
    config.speechRecognitionLanguage = 'en-US';
    const push = sdk.AudioInputStream.createPushStream();
    const r = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
    const recognized: string[] = [];
    let recognizedAt = 0;
    r.recognized = (_s, e) => {
      if (e.result.reason === sdk.ResultReason.RecognizedSpeech) {
        recognized.push(e.result.text);
        recognizedAt ||= performance.now();
      }
    };
    const stopped = new Promise<void>((resolve) => (r.sessionStopped = () => resolve()));
    onTestFinished(() => r.close());
    await new Promise<void>((resolve, reject) => r.startContinuousRecognitionAsync(resolve, (e) => reject(new Error(e))));
    // The question at real time, 100 ms at a time, as a microphone gives it.
    const pcm = Buffer.concat([fixturePcm('q-nearest-store.wav'), silence(1500)]);
    const spokenEnd = await new Promise<number>((resolve) => {
      let at = 0;
      const timer = setInterval(() => {
        const chunk = pcm.subarray(at, at + 3200);
        at += 3200;
        push.write(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer);
        if (at >= pcm.length) {
          clearInterval(timer);
          resolve(performance.now());
        }
      }, 100);
    });
    push.close();
    await stopped;
    await new Promise<void>((done) => r.stopContinuousRecognitionAsync(done, () => done()));

    // Closed at once when bounded; still open (and the test failing) when not.
    const bigClose = big.ws.readyState === WebSocket.CLOSED ? await big.closed : { code: -1, reason: 'still open' };
    const events = ((await (await fetch(`${t.standin.url}/__standin/events`)).json()) as { channel: string; body: { path?: string; skipped?: number } }[]).slice(before);
    const skipped = events.filter((e) => e.channel === 'speech' && e.body.path === 'decode.skipped');
    process.stdout.write(
      `[abuse] speech flood: 1 MB connection closed ${bigClose.code} (${bigClose.reason}); burst connection's utterances refused a place: ${skipped.map((e) => e.body.skipped ?? 'first').join(', ')}; visitor recognized ${Math.round(recognizedAt - spokenEnd)} ms after its audio ended: ${JSON.stringify(recognized)}\n`,
    );
    expect(bigClose.code).toBe(1008);
    expect(bigClose.reason).toMatch(/faster than/);
    expect(skipped.length).toBeGreaterThan(0);
    expect(recognized).toEqual(['Where is the nearest store?']);
  }, 120_000);
});
