/**
 * A recognizer that starts with a backlog: how long after it has started does the question
 * at the end of that backlog come back recognized?
 *
 * A call on a loaded phone opens its recognizer seconds after the microphone (the voice
 * detector loads first), and what the visitor said meanwhile waits in the feed
 * (src/features/voice/pcmFeed.ts). The Speech SDK sends a recognizer's first 5 s of audio at
 * once and paces the rest at twice real time, so a question at the end of a 12 s backlog
 * reached the service about 3.5 s late (docs/decisions.md, "The first seconds of a call").
 *
 * Against the stand-in's speech service (real pocketsphinx), with the real SDK in Node:
 *   - the app: the app's own recognizer (src/features/voice/services/speechRecognizer.ts), started, then
 *     given 12 s of silence and the question (espeak-ng's "where is the nearest store") in
 *     96 ms chunks at once, as the feed hands a backlog over;
 *   - the reference, in the same run: the SDK with its default pacing, the same audio.
 * Goal: the app's question recognized within 0.5 of the reference's time, every round.
 *
 *   node bench/recognizer-backlog.mjs           BACKLOG_ROUNDS=5 rounds of each, alternating
 *   node bench/recognizer-backlog.mjs --quick   1 round: checks the wiring
 * Writes bench/results/recognizer-backlog.json; exit 1 on a missed goal, 2 when it could not measure.
 */
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { tsImport } from 'tsx/esm/api';
import { isQuick, ratioOf, runBench } from './_report.mjs';

const { ensureFixtures, fixturePcm, silence, startSpeechServer } = await tsImport('../server/speech/testing.ts', import.meta.url);
const { createRecognizer } = await tsImport('../src/features/voice/services/speechRecognizer.ts', import.meta.url);

const ROUNDS = isQuick() ? 1 : Number(process.env.BACKLOG_ROUNDS ?? 5);
const BACKLOG_MS = 12_000;
const CHUNK_BYTES = 1536 * 2;
const GOAL_RATIO = 0.5;
const LIMIT_MS = 20_000;

/** 96 ms chunks of 16-bit PCM, as the capture worklet posts them. */
function chunks(pcm) {
  const out = [];
  for (let at = 0; at < pcm.length; at += CHUNK_BYTES) {
    const part = pcm.subarray(at, Math.min(at + CHUNK_BYTES, pcm.length));
    out.push(new Int16Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.length)));
  }
  return out;
}

/** ms from start until the first recognized phrase, and its text. */
function firstPhrase(on) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const timer = setTimeout(() => resolve({ ms: null, text: null }), LIMIT_MS);
    on((text) => {
      clearTimeout(timer);
      resolve({ ms: Date.now() - t0, text });
    });
  });
}

async function theApp(port, audio) {
  const recognizer = await createRecognizer(
    { lang: 'en', host: `ws://127.0.0.1:${port}`, key: 'demo-speech-key', region: 'local', segmentationSilenceMs: 1000 },
    () => Promise.resolve(sdk),
  );
  try {
    await recognizer.start();
    const heard = firstPhrase((done) => recognizer.on('recognized', (text) => text && done(text)));
    for (const chunk of audio) recognizer.write(chunk);
    return await heard;
  } finally {
    await recognizer.stop();
  }
}

async function reference(port, audio) {
  const config = sdk.SpeechConfig.fromHost(new URL(`ws://127.0.0.1:${port}`), 'demo-speech-key');
  config.speechRecognitionLanguage = 'en-US';
  config.setProperty(sdk.PropertyId.Speech_SegmentationSilenceTimeoutMs, '1000');
  const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16_000, 16, 1));
  const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
  try {
    await new Promise((resolve, reject) => recognizer.startContinuousRecognitionAsync(resolve, reject));
    const heard = firstPhrase((done) => {
      recognizer.recognized = (_s, e) => e.result.text && done(e.result.text);
    });
    for (const chunk of audio) push.write(chunk.buffer);
    return await heard;
  } finally {
    await new Promise((resolve) => recognizer.stopContinuousRecognitionAsync(resolve, resolve));
    recognizer.close();
  }
}

await runBench('recognizer-backlog', { what: 'a question at the end of a 12 s backlog, recognized after the recognizer started' }, async (report) => {
  ensureFixtures();
  const audio = chunks(Buffer.concat([silence(BACKLOG_MS), fixturePcm('q-nearest-store.wav'), silence(1500)]));
  report.settings = { rounds: ROUNDS, backlogMs: BACKLOG_MS, chunkMs: 96, segmentationSilenceMs: 1000 };
  const speech = await startSpeechServer();
  const rounds = [];
  report.figures = { rounds };
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      const ref = await reference(speech.port, audio);
      const app = await theApp(speech.port, audio);
      rounds.push({ app, reference: ref });
      process.stdout.write(`[recognizer-backlog] round ${i + 1}: the app ${app.ms} ms ${JSON.stringify(app.text)}, the reference ${ref.ms} ms ${JSON.stringify(ref.text)}\n`);
    }
  } finally {
    await speech.close();
  }
  if (rounds.some((r) => r.app.ms === null || r.reference.ms === null)) throw new Error('a question was not recognized within 20 s: nothing to compare');
  const worst = Math.max(...rounds.map((r) => r.app.ms / r.reference.ms));
  report.table(
    'A question at the end of a 12 s backlog: ms from the recognizer started to its phrase',
    ['round', 'the app', 'reference (the SDK paces past 5 s)', 'ratio'],
    rounds.map((r, i) => [String(i + 1), String(r.app.ms), String(r.reference.ms), String(ratioOf(r.app.ms, r.reference.ms, 2))]),
  );
  report.goal('ratio', { label: 'the app / the reference, worst round', value: worst, limit: GOAL_RATIO, unit: '×', digits: 2 });
});
