/**
 * The Speech SDK's browser bundle in headless Chromium against the stand-in: the key goes
 * in the URL (browsers cannot set WebSocket headers), the fake microphone loops the call
 * fixture, and an AudioWorklet feeds the push stream 1536-sample chunks at 16 kHz as the
 * app's capture worklet does. The questions must come back in order, round the loop.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser } from '@playwright/test';
import type * as SpeechSdk from 'microsoft-cognitiveservices-speech-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures, FIXTURES_DIR, normalize, startSpeechServer, type RunningSpeech } from './testing.ts';

const SDK_BUNDLE = createRequire(import.meta.url).resolve('microsoft-cognitiveservices-speech-sdk/distrib/browser/microsoft.cognitiveservices.speech.sdk.bundle.js');

const WORKLET = `
registerProcessor('chunker', class extends AudioWorkletProcessor {
  constructor() { super(); this.frame = new Int16Array(1536); this.filled = 0; }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    for (const s of channel) {
      this.frame[this.filled++] = Math.max(-32768, Math.min(32767, Math.round(s * 32768)));
      if (this.filled === this.frame.length) {
        this.port.postMessage(this.frame, [this.frame.buffer]);
        this.frame = new Int16Array(1536);
        this.filled = 0;
      }
    }
    return true;
  }
});`;

/** Runs in the page: microphone → worklet → push stream → continuous recognition. */
async function startInPage({ host, worklet }: { host: string; worklet: string }): Promise<void> {
  const w = window as unknown as { SpeechSDK: typeof SpeechSdk; phrases: string[]; failures: string[] };
  const SDK = w.SpeechSDK;
  w.phrases = [];
  w.failures = [];
  const config = SDK.SpeechConfig.fromHost(new URL(host), 'demo-speech-key');
  config.speechRecognitionLanguage = 'en-US';
  config.setProperty(SDK.PropertyId.Speech_SegmentationSilenceTimeoutMs, '1000');
  const push = SDK.AudioInputStream.createPushStream(SDK.AudioStreamFormat.getWaveFormatPCM(16000, 16, 1));
  const recognizer = new SDK.SpeechRecognizer(config, SDK.AudioConfig.fromStreamInput(push));
  recognizer.recognized = (_s, e) => w.phrases.push(e.result.reason === SDK.ResultReason.RecognizedSpeech ? e.result.text : `<${e.result.reason}>`);
  recognizer.canceled = (_s, e) => w.failures.push(`${e.reason}: ${e.errorDetails}`);
  const mic = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
  const context = new AudioContext({ sampleRate: 16000 });
  await context.audioWorklet.addModule(URL.createObjectURL(new Blob([worklet], { type: 'text/javascript' })));
  const node = new AudioWorkletNode(context, 'chunker', { channelCount: 1, channelCountMode: 'explicit' });
  node.port.onmessage = (e: MessageEvent<Int16Array>) => push.write(e.data.buffer as ArrayBuffer);
  context.createMediaStreamSource(mic).connect(node);
  await new Promise<void>((resolve, reject) => recognizer.startContinuousRecognitionAsync(resolve, (e) => reject(new Error(e))));
}

describe('speech service driven by the Speech SDK in Chromium', () => {
  let speech: RunningSpeech;
  let browser: Browser;

  beforeAll(async () => {
    ensureFixtures();
    speech = await startSpeechServer(
      {},
      {
        '/': { type: 'text/html', body: '<!doctype html><title>speech</title>' },
        '/sdk.js': { type: 'text/javascript', body: readFileSync(SDK_BUNDLE) },
      },
    );
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${FIXTURES_DIR}/call-two-questions.wav`,
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await speech?.close();
  });

  it('recognizes the looping call question after question, the key in the URL', async () => {
    const origin = `http://127.0.0.1:${speech.port}`;
    const page = await browser.newPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    // Served from the service's own origin, as the app is: a page from anywhere else may
    // not open a loopback WebSocket (Chromium's local network access checks).
    await page.goto(`${origin}/`);
    await page.addScriptTag({ url: '/sdk.js' });
    await page.evaluate(startInPage, { host: `ws://127.0.0.1:${speech.port}`, worklet: WORKLET });
    const phrases = () => page.evaluate(() => (window as unknown as { phrases: string[] }).phrases);
    // Question 1, question 2, and question 1 again after the file loops (about 13 s of audio).
    await expect.poll(async () => (await phrases()).length, { timeout: 40_000, interval: 250 }).toBeGreaterThanOrEqual(3);
    expect((await phrases()).slice(0, 3).map(normalize)).toEqual(['where is the nearest store', 'what are your opening hours', 'where is the nearest store']);
    expect(await page.evaluate(() => (window as unknown as { failures: string[] }).failures)).toEqual([]);
    expect(sockets).toHaveLength(1);
    expect(new URL(sockets[0] ?? '').searchParams.get('Ocp-Apim-Subscription-Key')).toBe('demo-speech-key');
    await page.close();
  }, 60_000);
});
