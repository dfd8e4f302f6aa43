/**
 * The real microsoft-cognitiveservices-speech-sdk (in Node it connects with the `ws` package)
 * against the stand-in, with espeak-ng fixtures and real pocketsphinx recognition.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures, FIXTURES_DIR, fixturePcm, normalize, QUESTION_FIXTURES, silence, startSpeechServer, type RunningSpeech } from './testing.ts';
import { makeWav } from './wav.ts';

interface Outcome {
  recognized: string[];
  recognizing: string[];
  noMatch: number;
  canceled: { reason: sdk.CancellationReason; errorCode: sdk.CancellationErrorCode; details: string };
}

async function recognize(port: number, pcm: Buffer, opts: { key?: string; language?: string } = {}): Promise<Outcome> {
  const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${port}`), opts.key ?? 'demo-speech-key');
  config.speechRecognitionLanguage = opts.language ?? 'en-US';
  config.setProperty(sdk.PropertyId.Speech_SegmentationSilenceTimeoutMs, '500');
  const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16000, 16, 1));
  // 100 ms chunks, as a microphone would deliver them.
  for (let at = 0; at < pcm.length; at += 3200) {
    write(push, pcm.subarray(at, at + 3200));
  }
  push.close();
  const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
  const recognized: string[] = [];
  const recognizing: string[] = [];
  let noMatch = 0;
  try {
    const canceled = await new Promise<Outcome['canceled']>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no end of stream within 25 s')), 25_000);
      recognizer.recognizing = (_s, e) => recognizing.push(e.result.text);
      recognizer.recognized = (_s, e) => {
        if (e.result.reason === sdk.ResultReason.RecognizedSpeech) recognized.push(e.result.text);
        else if (e.result.reason === sdk.ResultReason.NoMatch) noMatch++;
      };
      // The SDK ends a pushed stream with a canceled event: EndOfStream, or Error on failure.
      recognizer.canceled = (_s, e) => {
        clearTimeout(timer);
        resolve({ reason: e.reason, errorCode: e.errorCode, details: e.errorDetails ?? '' });
      };
      recognizer.startContinuousRecognitionAsync(undefined, (err) => reject(new Error(err)));
    });
    return { recognized, recognizing, noMatch, canceled };
  } finally {
    await new Promise<void>((done) => recognizer.stopContinuousRecognitionAsync(done, () => done()));
    recognizer.close();
  }
}

/** What a recognizer reported, in order, with when the session stopped. */
interface Watched {
  recognized: { reason: sdk.ResultReason; text: string }[];
  canceled: sdk.CancellationReason[];
  stopped: Promise<number>;
}

function watch(recognizer: sdk.SpeechRecognizer): Watched {
  const out: Omit<Watched, 'stopped'> = { recognized: [], canceled: [] };
  recognizer.recognized = (_s, e) => out.recognized.push({ reason: e.result.reason, text: e.result.text });
  recognizer.canceled = (_s, e) => out.canceled.push(e.reason);
  const stopped = new Promise<number>((resolve) => (recognizer.sessionStopped = () => resolve(Date.now())));
  return { ...out, stopped };
}

function write(push: sdk.PushAudioInputStream, bytes: Buffer): void {
  push.write(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_r, reject) => setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms))]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A complete WAV file, header and all, padded with silence to `seconds`. */
function wavFile(fixture: string, seconds: number): Buffer {
  const pcm = fixturePcm(fixture);
  return makeWav(Buffer.concat([pcm, silence(seconds * 1000 - pcm.length / 32)]));
}

/** After sessionStopped nothing more may come; this long is watched to be sure. */
const QUIET_AFTER_STOP_MS = 3000;

describe('speech service driven by the Speech SDK', () => {
  let speech: RunningSpeech;

  beforeAll(async () => {
    ensureFixtures();
    speech = await startSpeechServer();
  });

  afterAll(async () => {
    await speech?.close();
  });

  it.each(QUESTION_FIXTURES)('recognizes $file as its question, word for word', async ({ file, text }) => {
    const out = await recognize(speech.port, fixturePcm(file));
    expect(out.canceled.reason).toBe(sdk.CancellationReason.EndOfStream);
    expect(out.recognized.map(normalize)).toEqual([text]);
    // The service's DisplayText style: capitalised, with an end mark.
    expect(out.recognized[0]).toMatch(/^[A-Z].*[?.]$/);
    expect(out.recognizing.length).toBeGreaterThan(0);
  });

  it('recognizes the two questions of a call in order', async () => {
    const out = await recognize(speech.port, fixturePcm('call-two-questions.wav'));
    expect(out.canceled.reason).toBe(sdk.CancellationReason.EndOfStream);
    expect(out.recognized.map(normalize)).toEqual(['where is the nearest store', 'what are your opening hours']);
  });

  it('answers recognizeOnce (interactive mode) with one result', async () => {
    const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${speech.port}`), 'demo-speech-key');
    config.speechRecognitionLanguage = 'en-US';
    const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16000, 16, 1));
    const pcm = fixturePcm('q-new-products.wav');
    push.write(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength) as ArrayBuffer);
    push.close();
    const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
    try {
      const result = await new Promise<sdk.SpeechRecognitionResult>((resolve, reject) => recognizer.recognizeOnceAsync(resolve, reject));
      expect(result.reason).toBe(sdk.ResultReason.RecognizedSpeech);
      expect(result.text).toBe('Show me the new products.');
    } finally {
      recognizer.close();
    }
  });

  it('recognizes nothing in silence', async () => {
    const out = await recognize(speech.port, fixturePcm('silence-3s.wav'));
    expect(out.canceled.reason).toBe(sdk.CancellationReason.EndOfStream);
    expect(out.recognized).toEqual([]);
  });

  it('answers NoMatch for a language without a local model', async () => {
    const out = await recognize(speech.port, fixturePcm('q-discount.wav'), { language: 'zh-CN' });
    expect(out.recognized).toEqual([]);
    expect(out.noMatch).toBe(1);
  });

  it('reports a wrong key as a canceled result with an error', async () => {
    const out = await recognize(speech.port, fixturePcm('q-discount.wav'), { key: 'not-the-key' });
    expect(out.canceled.reason).toBe(sdk.CancellationReason.Error);
    expect(out.canceled.errorCode).toBe(sdk.CancellationErrorCode.ConnectionFailure);
    expect(out.canceled.details).toContain('401');
    expect(out.recognized).toEqual([]);
  });

  // The Speech SDK's sample patterns: one result per utterance, then sessionStopped.
  /** The SDK's samples: a recognizer on a push stream with the default format. */
  function recognizer(push: sdk.PushAudioInputStream): sdk.SpeechRecognizer {
    const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${speech.port}`), 'demo-speech-key');
    config.speechRecognitionLanguage = 'en-US';
    return new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
  }

  it('continuous recognition of a whole WAV file written into a closed push stream', async () => {
    // The SDK's samples write the file as it is, RIFF header included, into a push stream.
    const push = sdk.AudioInputStream.createPushStream();
    write(push, wavFile('q-nearest-store.wav', 5));
    push.close();
    const r = recognizer(push);
    const seen = watch(r);
    try {
      r.startContinuousRecognitionAsync();
      await within(seen.stopped, 10_000, 'sessionStopped');
      await sleep(QUIET_AFTER_STOP_MS);
      expect(seen.recognized).toEqual([{ reason: sdk.ResultReason.RecognizedSpeech, text: 'Where is the nearest store?' }]);
      expect(seen.canceled).toEqual([sdk.CancellationReason.EndOfStream]);
    } finally {
      await new Promise<void>((done) => r.stopContinuousRecognitionAsync(done, () => done()));
      r.close();
    }
  });

  it('recognizeOnceAsync of a whole WAV file', async () => {
    const push = sdk.AudioInputStream.createPushStream();
    write(push, readFileSync(join(FIXTURES_DIR, 'q-opening-hours.wav')));
    push.close();
    const r = recognizer(push);
    const seen = watch(r);
    try {
      const result = await within(new Promise<sdk.SpeechRecognitionResult>((resolve, reject) => r.recognizeOnceAsync(resolve, reject)), 10_000, 'a result');
      expect(result.reason).toBe(sdk.ResultReason.RecognizedSpeech);
      expect(result.text).toBe('What are your opening hours?');
      await within(seen.stopped, 5_000, 'sessionStopped');
      await sleep(QUIET_AFTER_STOP_MS);
      expect(seen.recognized).toHaveLength(1);
    } finally {
      r.close();
    }
  });

  it('continuous recognition of a push stream that stays open across several utterances', async () => {
    const push = sdk.AudioInputStream.createPushStream();
    const r = recognizer(push);
    const seen = watch(r);
    try {
      await new Promise<void>((resolve, reject) => r.startContinuousRecognitionAsync(resolve, (e) => reject(new Error(e))));
      const files = ['q-discount.wav', 'q-new-products.wav', 'q-nearest-store.wav'];
      for (const [i, file] of files.entries()) {
        // Each one a whole file, as a client that records one utterance at a time sends it.
        write(push, wavFile(file, 3));
        await expect.poll(() => seen.recognized.length, { timeout: 10_000 }).toBe(i + 1);
      }
      push.close();
      await within(seen.stopped, 10_000, 'sessionStopped');
      await sleep(QUIET_AFTER_STOP_MS);
      expect(seen.recognized).toEqual([
        { reason: sdk.ResultReason.RecognizedSpeech, text: 'Tell me about the discount.' },
        { reason: sdk.ResultReason.RecognizedSpeech, text: 'Show me the new products.' },
        { reason: sdk.ResultReason.RecognizedSpeech, text: 'Where is the nearest store?' },
      ]);
      expect(seen.canceled).toEqual([sdk.CancellationReason.EndOfStream]);
    } finally {
      await new Promise<void>((done) => r.stopContinuousRecognitionAsync(done, () => done()));
      r.close();
    }
  });
});
