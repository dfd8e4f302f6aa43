/**
 * A browser-like session through the real Speech SDK: continuous recognition fed in real
 * time, 96 ms (1536-sample) chunks as the app's capture worklet delivers them, the call
 * fixture looped twice as Chromium's fake microphone loops it. Every question must come
 * back, in order, each loop before the next loop is spoken; and the session must survive its
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

  it('recognizes both questions of the looped call in order, each loop before the next is spoken', async () => {
    const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${speech.port}`), 'demo-speech-key');
    config.speechRecognitionLanguage = 'en-US';
    config.setProperty(sdk.PropertyId.Speech_SegmentationSilenceTimeoutMs, String(SEGMENTATION_MS));
    const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16000, 16, 1));
    const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
    const phrases: string[] = [];
    const errors: string[] = [];
    recognizer.recognized = (_s, e) => {
      phrases.push(e.result.reason === sdk.ResultReason.RecognizedSpeech ? normalize(e.result.text) : `<${sdk.ResultReason[e.result.reason]}>`);
    };
    recognizer.canceled = (_s, e) => errors.push(e.errorDetails);
    // Fed as a microphone feeds it, one chunk every 96 ms of the clock; then silence, as an open
    // microphone goes on sending, until `count` phrases are in (the stream stays open: phrases
    // come while the call goes on, not when it ends). How soon they come is bench/'s to measure.
    const silence = Buffer.alloc(CHUNK_BYTES);
    const feed = async (audio: Buffer, count: number): Promise<void> => {
      const t0 = Date.now();
      const write = (chunk: Buffer) => push.write(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer);
      let i = 0;
      for (; i * CHUNK_BYTES < audio.length; i++) {
        write(audio.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
        await sleep(t0 + (i + 1) * CHUNK_MS - Date.now());
      }
      for (const until = Date.now() + 30_000; phrases.length < count && errors.length === 0; i++) {
        if (Date.now() > until) throw new Error(`${phrases.length} of ${count} phrases recognized 30 s after their audio: ${JSON.stringify(phrases)}`);
        write(silence);
        await sleep(t0 + (i + 1) * CHUNK_MS - Date.now());
      }
    };
    try {
      await new Promise<void>((resolve, reject) => recognizer.startContinuousRecognitionAsync(resolve, (e) => reject(new Error(e))));
      const call = fixturePcm('call-two-questions.wav');
      await feed(call, 2);
      // Someone cleans /tmp mid-call: the service must put its files back, not go deaf.
      const workDirs = readdirSync(parent).filter((d) => d.startsWith(WORK_DIR_PREFIX));
      expect(workDirs.length).toBeGreaterThan(0);
      for (const dir of workDirs) rmSync(join(parent, dir), { recursive: true });
      await feed(call, 4);
    } finally {
      await new Promise<void>((done) => recognizer.stopContinuousRecognitionAsync(done, () => done()));
      recognizer.close();
      push.close();
    }
    expect(errors).toEqual([]);
    const [q1, q2] = ['where is the nearest store', 'what are your opening hours'];
    expect(phrases).toEqual([q1, q2, q1, q2]);
  }, 120_000);
});
