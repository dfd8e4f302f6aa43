/**
 * A browser-like session through the real Speech SDK: continuous recognition fed in real
 * time, 96 ms (1536-sample) chunks as the app's capture worklet delivers them, the call
 * fixture looped twice as Chromium's fake microphone loops it. Every question must come
 * back, in order, each loop, soon after it is spoken; and the session must survive its
 * work directory being deleted half way (what broke recognition after the first phrase).
 */
import { readdirSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { questions } from '../replies/knowledge.ts';
import { createRecognizer } from './recognizer.ts';
import { ensureFixtures, fixturePcm, normalize, startSpeechServer, type RunningSpeech } from './testing.ts';
import { WORK_DIR_PREFIX } from './workdir.ts';

const CHUNK_BYTES = 1536 * 2;
const CHUNK_MS = 96;
/** The app's segmentation silence at call start. */
const SEGMENTATION_MS = 1000;

interface Phrase {
  text: string;
  /** From the end of the phrase's audio to its recognized event, minus the segmentation silence. */
  lagMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('continuous recognition streamed in real time', () => {
  let speech: RunningSpeech;
  let parent: string;

  beforeAll(async () => {
    ensureFixtures();
    parent = mkdtempSync(join(tmpdir(), 'speech-stream-test-'));
    speech = await startSpeechServer({ recognizer: createRecognizer({ questions: questions('en'), tmpDir: parent }) });
  });

  afterAll(async () => {
    await speech?.close();
    rmSync(parent, { recursive: true, force: true });
  });

  it('recognizes both questions of the looped call in order, both times, within 2 s each', async () => {
    const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${speech.port}`), 'demo-speech-key');
    config.speechRecognitionLanguage = 'en-US';
    config.setProperty(sdk.PropertyId.Speech_SegmentationSilenceTimeoutMs, String(SEGMENTATION_MS));
    const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16000, 16, 1));
    const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
    const phrases: Phrase[] = [];
    const errors: string[] = [];
    let t0 = 0;
    recognizer.recognized = (_s, e) => {
      const endMs = (e.result.offset + e.result.duration) / 10_000;
      if (e.result.reason === sdk.ResultReason.RecognizedSpeech) phrases.push({ text: normalize(e.result.text), lagMs: Date.now() - t0 - endMs - SEGMENTATION_MS });
      else phrases.push({ text: `<${sdk.ResultReason[e.result.reason]}>`, lagMs: 0 });
    };
    recognizer.canceled = (_s, e) => errors.push(e.errorDetails);
    try {
      await new Promise<void>((resolve, reject) => recognizer.startContinuousRecognitionAsync(resolve, (e) => reject(new Error(e))));
      const call = fixturePcm('call-two-questions.wav');
      const audio = Buffer.concat([call, call]);
      let removed = false;
      t0 = Date.now();
      for (let i = 0; i * CHUNK_BYTES < audio.length; i++) {
        const chunk = audio.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES);
        push.write(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer);
        if (!removed && phrases.length >= 2) {
          // Someone cleans /tmp mid-call: the service must put its files back, not go deaf.
          for (const dir of readdirSync(parent).filter((d) => d.startsWith(WORK_DIR_PREFIX))) rmSync(join(parent, dir), { recursive: true });
          removed = true;
        }
        await sleep(t0 + (i + 1) * CHUNK_MS - Date.now());
      }
      expect(removed).toBe(true);
      await expect.poll(() => phrases.length, { timeout: 8000, interval: 100 }).toBeGreaterThanOrEqual(4);
    } finally {
      await new Promise<void>((done) => recognizer.stopContinuousRecognitionAsync(done, () => done()));
      recognizer.close();
      push.close();
    }
    expect(errors).toEqual([]);
    const [q1, q2] = ['where is the nearest store', 'what are your opening hours'];
    expect(phrases.map((p) => p.text)).toEqual([q1, q2, q1, q2]);
    console.info('phrase lag beyond the segmentation silence (ms):', phrases.map((p) => Math.round(p.lagMs)));
    for (const p of phrases) expect(p.lagMs).toBeLessThan(2000);
  }, 60_000);
});
