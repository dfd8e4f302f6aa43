/**
 * Where a call's turn ends (docs/decisions.md D8), in the manner of livekit/eot-bench: a corpus
 * of questions, some with a pause inside (at a word boundary, after words that leave the
 * question open) and some whole, and for each end-of-turn rule the share of questions cut
 * (a message sent before the visitor had finished) and the time from a question's last word
 * to its message.
 *
 * Rules, replayed on the same recording in the same run:
 *   - the app: voice detection's 768 ms (8 frames), then the turn (D8: speech again within
 *     TURN_RESUME_MS goes on with the sentence; open words wait for the rest);
 *   - silence only, at 500, 768, 1000 and 1500 ms (5, 8, 10 and 16 frames of 96 ms), the
 *     sentence sent as soon as the detector has ended it and the recognizer's words are in.
 * What each rule is fed: the Silero model of the VAD worker (src/features/voice/workers/vad)
 * run here on each question's 16 kHz audio, frame by frame, through the app's own frame
 * processor with the rule's redemption frames; and the real recognizer stand-in (the
 * stand-in's speech service through the Speech SDK, fed in real time in 100 ms chunks, with
 * the call's 1 s segmentation silence), whose partial and final phrases arrive when they
 * arrive. Both go through the app's sentence rule (src/features/voice/sentences.ts) on one
 * clock, the question's own. The capture worklet and the worker's thread are left out: at 16
 * kHz the worklet only moves samples, and bench/voice-pipeline.mjs holds the worker's
 * segments to within a frame of this processing.
 *
 * Corpus: the stand-in's questions (server/replies/knowledge.data.ts) spoken by espeak-ng
 * (en-us, 150 words a minute; the stand-in recognizes English only), cut at a word boundary
 * with pauses of 0.3 to 2 s of real quiet between the halves (espeak's own trailing quiet
 * trimmed); the same questions whole; and their first halves alone (a visitor who stopped).
 *
 * Goals: the app cuts at most 5 % of the questions with a pause of up to 1.5 s; it sends no
 * whole question later than the 768 ms silence rule; and no silence rule is better on both
 * counts (fewer or as many cuts and a lower mean latency).
 *
 *   node bench/turns.mjs           every question, every pause
 *   node bench/turns.mjs --quick   two questions, two pauses: checks the wiring
 * Needs espeak-ng and ffmpeg. Writes bench/results/turns.json; exit 1 on a missed goal, 2 when
 * it could not measure.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sdk from 'microsoft-cognitiveservices-speech-sdk';
import * as ort from 'onnxruntime-web';
import { tsImport } from 'tsx/esm/api';
import { ROOT, startStandin } from './_setup.mjs';
import { formatNumber, isQuick, runBench } from './_report.mjs';

const { FrameProcessor } = await tsImport('../src/features/voice/workers/vad/frameProcessor.ts', import.meta.url);
const { SileroLegacy } = await tsImport('../src/features/voice/workers/vad/silero.ts', import.meta.url);
const { replaySentences } = await tsImport('./voice/replay.ts', import.meta.url);
const { CALL_START_SILENCE_MS, TIMING } = await tsImport('../src/features/voice/sagas/callState.ts', import.meta.url);

const QUICK = isQuick();
const RATE = 16_000;
const FRAME = 1536;
const FRAME_MS = (FRAME / RATE) * 1000;
/**
 * Each question's parts, cut where a visitor stops to think. Only cuts whose two halves the
 * stand-in's recognizer hears from its grammar (server/speech/grammar.ts): a half it cannot
 * place goes to its general language model, whose decodes take seconds, and every rule would
 * then be measuring that.
 */
const QUESTIONS = [
  ['where is the', 'nearest store'],
  ['where is', 'the nearest store'],
  ['what are', 'your opening hours'],
  ['where can i', 'buy your products'],
  ['where can i buy', 'your products'],
  ['are there', 'any discounts'],
].slice(0, QUICK ? 2 : undefined);
const PAUSES_S = QUICK ? [0.6, 1.5] : [0.3, 0.6, 0.9, 1.2, 1.5, 2.0];
/** The goal's pauses: up to 1.5 s. */
const GOAL_PAUSE_S = 1.5;
const LEAD_S = 1;
/** Quiet after the last word: the longest wait of any rule, and the recognizer's words. */
const TAIL_S = 5;
/** Questions recognized at once (each on its own connection), as visitors would. */
const CONCURRENCY = 3;
/** A faint noise floor (−66 dBFS), as any microphone has: digital silence is not what a phone hears. */
const NOISE = 0.0005;
const CUT_GOAL = 0.05;
/** A visitor who stopped after "where is the" is answered within 3 s of the last word (issue's goal). */
const STOPPED_LIMIT_MS = 3000;

const RULES = [
  { name: 'app', label: 'the app (768 ms + the turn, D8)', redemptionFrames: 8, timing: TIMING, lang: 'en' },
  ...[500, 768, 1000, 1500].map((ms) => ({
    name: `silence-${ms}`,
    label: `silence only, ${ms} ms`,
    redemptionFrames: Math.round(ms / FRAME_MS),
    timing: { ...TIMING, resumeMs: 0 },
    // No language: no word leaves a question open.
    lang: '',
  })),
];

/** espeak-ng's voice for `text`, 16 kHz mono float, its leading and trailing quiet trimmed. */
function speak(text) {
  const wav = execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '--stdout', text], { maxBuffer: 1 << 26 });
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-ar', String(RATE), '-ac', '1', '-f', 'f32le', 'pipe:1'], { input: wav, maxBuffer: 1 << 26 });
  const samples = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  const loud = (v) => Math.abs(v) > 0.01;
  const first = samples.findIndex(loud);
  let last = samples.length - 1;
  while (last > first && !loud(samples[last])) last--;
  return samples.slice(first, last + 1);
}

/** Lead, the parts with the pauses between them, tail; a faint noise floor under it all. */
function compose(parts, pausesS) {
  const pieces = [new Float32Array(LEAD_S * RATE)];
  parts.forEach((part, i) => {
    if (i > 0) pieces.push(new Float32Array(Math.round(pausesS * RATE)));
    pieces.push(part);
  });
  const speechEnd = pieces.reduce((n, p) => n + p.length, 0);
  pieces.push(new Float32Array(TAIL_S * RATE));
  const out = new Float32Array(pieces.reduce((n, p) => n + p.length, 0));
  pieces.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  let seed = 1;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] += ((seed / 0x7fffffff) * 2 - 1) * NOISE;
  }
  return { audio: out, lastWordMs: (speechEnd / RATE) * 1000, secondPartMs: ((LEAD_S * RATE + parts[0].length + pausesS * RATE) / RATE) * 1000 };
}

function pcm16(samples) {
  const out = Buffer.alloc(samples.length * 2);
  samples.forEach((v, i) => out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32767))), i * 2));
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The stand-in's recognizer over one question, fed in real time: its partials and finals on the question's clock. */
async function recognize(host, audio) {
  const config = sdk.SpeechConfig.fromHost(new URL(host), 'demo-speech-key');
  config.speechRecognitionLanguage = 'en-US';
  config.setProperty(sdk.PropertyId.Speech_SegmentationSilenceTimeoutMs, String(CALL_START_SILENCE_MS));
  // Node has no web worker for the SDK's timers (something here defines a Worker it cannot use).
  config.setProperty(sdk.PropertyId.WebWorkerLoadType, 'off');
  const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(RATE, 16, 1));
  const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
  const events = [];
  let t0 = 0;
  const at = () => performance.now() - t0;
  recognizer.recognizing = (_s, e) => events.push({ at: at(), event: { type: 'recognizing', text: e.result.text } });
  recognizer.recognized = (_s, e) => {
    if (e.result.reason === sdk.ResultReason.RecognizedSpeech && e.result.text) events.push({ at: at(), event: { type: 'recognized', text: e.result.text } });
  };
  let failed = null;
  const ended = new Promise((resolve) => {
    recognizer.canceled = (_s, e) => {
      if (e.reason !== sdk.CancellationReason.EndOfStream) failed = new Error(`recognizer: ${String(e.errorDetails).slice(0, 200)}`);
      resolve();
    };
  });
  await new Promise((resolve, reject) => recognizer.startContinuousRecognitionAsync(resolve, (err) => reject(new Error(err))));
  const bytes = pcm16(audio);
  const chunk = (RATE / 10) * 2;
  t0 = performance.now();
  for (let i = 0, offset = 0; offset < bytes.length; i++, offset += chunk) {
    const piece = bytes.subarray(offset, offset + chunk);
    push.write(piece.buffer.slice(piece.byteOffset, piece.byteOffset + piece.byteLength));
    await sleep(Math.max(0, t0 + (i + 1) * 100 - performance.now()));
  }
  push.close();
  await Promise.race([ended, sleep(15_000)]);
  await new Promise((resolve) => recognizer.stopContinuousRecognitionAsync(resolve, resolve));
  recognizer.close();
  if (failed) throw failed;
  return events;
}

/** The detector's events for one rule, on the question's clock: each frame's event at the end of its audio. */
function detector(probabilities, redemptionFrames) {
  const vad = new FrameProcessor({ redemptionFrames });
  const frame = new Float32Array(FRAME);
  return probabilities.flatMap((p, i) => vad.process(frame, p).map((e) => ({ at: (i + 1) * FRAME_MS, event: { type: e.type, msgId: String(i) } })));
}

/** One rule over one question: the sentence rule's outputs, each with its time. */
function replay(rule, item) {
  // Flushed at the end: what is still held or waiting goes, as a hang-up sends it.
  const timed = [...detector(item.probabilities, rule.redemptionFrames), ...item.recognized, { at: Infinity, event: { type: 'flush' } }];
  const outputs = replaySentences(timed, rule.timing, rule.lang);
  // Each complete sentence is a message, and so is a phrase heard outside any sentence (the
  // app sends it as the visitor's talking over the avatar: outputs.ts strayPhrase).
  const messages = outputs.flatMap(({ at, output }) => {
    if (output.type === 'complete') return [{ at, phrases: output.phrases.length }];
    if (output.type === 'stray') return [{ at, phrases: 1 }];
    return [];
  });
  return {
    messages: messages.map((m) => ({ ...m, at: Number.isFinite(m.at) ? m.at : null })),
    breaks: outputs.filter((o) => o.output.type === 'interrupt').length,
    toasts: outputs.filter((o) => o.output.type === 'discarded' && o.output.reason === 'nothing recognized').length,
  };
}

/**
 * A question went whole when one message carried every phrase the recognizer heard of it;
 * it was cut when its phrases went as more than one message, or some went as none. Latency:
 * its last word → its (last) message.
 */
function judge(result, item) {
  const finals = item.recognized.filter((r) => r.event.type === 'recognized').length;
  const sent = result.messages;
  const last = sent.at(-1);
  const cut = sent.length > 1 || (sent.length === 1 && sent[0].phrases < finals);
  return { cut, missed: sent.length === 0, latencyMs: last && last.at !== null ? last.at - item.lastWordMs : null, breaks: result.breaks, toasts: result.toasts };
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const p95 = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)] : NaN);
const pct = (x) => `${formatNumber(x * 100, 1)} %`;
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : '—');

await runBench('turns', { what: "where a call's turn ends: questions cut at a pause, and the time from the last word to the message, for the app's rule and silence-only rules" }, async (report) => {
  report.settings = { questions: QUESTIONS.length, pausesS: PAUSES_S, goalPauseS: GOAL_PAUSE_S, concurrency: CONCURRENCY, segmentationSilenceMs: CALL_START_SILENCE_MS, turnResumeMs: TIMING.resumeMs };
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const model = await SileroLegacy.create(ort, readFileSync(join(ROOT, 'node_modules/@ricky0123/vad-web/dist/silero_vad_legacy.onnx')));

  const items = [];
  for (const parts of QUESTIONS) {
    const spoken = parts.map(speak);
    const text = parts.join(' ');
    items.push({ kind: 'whole', text, pauseS: null, ...compose([speak(text)], 0) });
    items.push({ kind: 'stopped', text: parts[0], pauseS: null, ...compose([spoken[0]], 0) });
    for (const pauseS of PAUSES_S) items.push({ kind: 'paused', text, pauseS, ...compose(spoken, pauseS) });
  }
  for (const item of items) {
    model.resetState();
    item.probabilities = [];
    for (let i = 0; i + FRAME <= item.audio.length; i += FRAME) item.probabilities.push(await model.process(item.audio.slice(i, i + FRAME)));
  }

  const standin = await startStandin();
  try {
    const host = standin.url.replace(/^http/, 'ws');
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++];
        item.recognized = await recognize(host, item.audio);
        done++;
        if (done % 8 === 0) console.log(`  recognized ${done} of ${items.length}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await standin.stop();
  }

  const byRule = RULES.map((rule) => ({ rule, judged: items.map((item) => ({ item, ...judge(replay(rule, item), item) })) }));
  const summary = byRule.map(({ rule, judged }) => {
    const paused = judged.filter((j) => j.item.kind === 'paused' && j.item.pauseS <= GOAL_PAUSE_S);
    const latencies = (kind) => judged.filter((j) => j.item.kind === kind && !j.cut && j.latencyMs !== null).map((j) => j.latencyMs);
    return {
      rule: rule.name,
      label: rule.label,
      cutShare: paused.filter((j) => j.cut).length / paused.length,
      cutShareByPause: Object.fromEntries(PAUSES_S.map((p) => [p, judged.filter((j) => j.item.pauseS === p && j.cut).length / QUESTIONS.length])),
      missed: judged.filter((j) => j.missed).length,
      extraBreaks: judged.reduce((n, j) => n + Math.max(0, j.breaks - 1), 0),
      toasts: judged.reduce((n, j) => n + j.toasts, 0),
      wholeMeanLatencyMs: mean(latencies('whole')),
      wholeP95LatencyMs: p95(latencies('whole')),
      pausedMeanLatencyMs: mean(latencies('paused')),
      stoppedMeanLatencyMs: mean(latencies('stopped')),
      stoppedMaxLatencyMs: Math.max(...latencies('stopped')),
      perItem: judged.map((j) => ({ kind: j.item.kind, text: j.item.text, pauseS: j.item.pauseS, cut: j.cut, messages: j.missed ? 0 : undefined, latencyMs: j.latencyMs === null ? null : Math.round(j.latencyMs) })),
    };
  });
  report.figures.rules = summary;
  report.figures.recognized = items.map((item) => ({ text: item.text, pauseS: item.pauseS, finals: item.recognized.filter((r) => r.event.type === 'recognized').map((r) => [Math.round(r.at), r.event.text]) }));

  report.table(
    `Questions cut at a pause (up to ${GOAL_PAUSE_S} s), and the time from the last word to the message`,
    ['rule', 'cut', ...PAUSES_S.map((p) => `cut at ${p} s`), 'whole: mean', 'whole: p95', 'paused: mean', 'stopped: mean', 'stopped: max', 'extra breaks', 'toasts'],
    summary.map((s) => [
      s.label,
      pct(s.cutShare),
      ...PAUSES_S.map((p) => pct(s.cutShareByPause[p])),
      ms(s.wholeMeanLatencyMs),
      ms(s.wholeP95LatencyMs),
      ms(s.pausedMeanLatencyMs),
      ms(s.stoppedMeanLatencyMs),
      ms(s.stoppedMaxLatencyMs),
      s.extraBreaks,
      s.toasts,
    ]),
  );

  const app = summary[0];
  const at768 = summary.find((s) => s.rule === 'silence-768');
  const appRule = byRule[0].judged;
  const silence768 = byRule.find((r) => r.rule.name === 'silence-768').judged;
  const laterThan768 = appRule.filter((j, i) => j.item.kind === 'whole' && (j.latencyMs ?? Infinity) > (silence768[i].latencyMs ?? Infinity) + 1).length;
  // eot-bench's front: cuts against the mean latency of whole questions.
  const dominating = summary.slice(1).filter((s) => s.cutShare <= app.cutShare && s.wholeMeanLatencyMs < app.wholeMeanLatencyMs);
  report.goal('cut-share', { label: `questions with a pause of up to ${GOAL_PAUSE_S} s the app cut`, value: app.cutShare * 100, limit: CUT_GOAL * 100, unit: '%', digits: 1 });
  report.goal('whole-later-than-768', { label: 'whole questions the app sent later than the 768 ms silence rule (same run)', value: laterThan768, limit: 0, unit: '' });
  report.goal('dominated', { label: 'silence-only rules with as few cuts and a lower mean latency on whole questions than the app', value: dominating.length, limit: 0, unit: '' });
  report.goal('stopped-max', { label: 'questions stopped after an open word: last word → message, the longest (the app)', value: app.stoppedMaxLatencyMs, limit: STOPPED_LIMIT_MS, unit: 'ms' });
  report.ratio('whole-latency-vs-768', { label: 'whole questions, last word → message, mean', subject: ['the app', app.wholeMeanLatencyMs], reference: ['silence 768 ms', at768.wholeMeanLatencyMs], unit: 'ms', valueDigits: 0 });
  report.ratio('cut-vs-768', { label: `questions cut (pauses ≤ ${GOAL_PAUSE_S} s)`, subject: ['the app', app.cutShare * 100], reference: ['silence 768 ms', at768.cutShare * 100], unit: '%', valueDigits: 1 });
  const at1500 = summary.find((s) => s.rule === 'silence-1500');
  report.ratio('cut-vs-1500', { label: `questions cut (pauses ≤ ${GOAL_PAUSE_S} s)`, subject: ['the app', app.cutShare * 100], reference: ['silence 1500 ms', at1500.cutShare * 100], unit: '%', valueDigits: 1 });
  report.ratio('whole-latency-vs-1500', { label: 'whole questions, last word → message, mean', subject: ['the app', app.wholeMeanLatencyMs], reference: ['silence 1500 ms', at1500.wholeMeanLatencyMs], unit: 'ms', valueDigits: 0 });
  const missed = summary.reduce((n, s) => n + s.missed, 0);
  if (missed > 0) report.note(`${missed} question-rule pairs sent nothing: the recognizer gave no words (figures.recognized).`);
});
