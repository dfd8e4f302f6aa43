/**
 * The real microsoft-cognitiveservices-speech-sdk (in Node it connects with the `ws` package)
 * against the stand-in, with espeak-ng fixtures and real pocketsphinx recognition.
 */
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures, fixturePcm, normalize, QUESTION_FIXTURES, startSpeechServer, type RunningSpeech } from './testing.ts';

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
    const chunk = pcm.subarray(at, at + 3200);
    push.write(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer);
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
});
