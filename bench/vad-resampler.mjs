/**
 * How faithfully each resampler feeds the Silero VAD (issue 5): speech recorded at a
 * device rate (44.1 and 48 kHz) and brought down to 16 kHz by our capture resampler
 * (src/features/voice/workers/dsp/resampler.ts) and by vad-web 0.0.31's, against the same speech
 * converted to 16 kHz with a near brick-wall filter (what a 16 kHz microphone would
 * give). Each version goes through the same model and frame state machine
 * (src/features/voice/workers/vad), and the speech segments' start and end frames are compared.
 *
 * Speech: the four espeak fixtures (tests/fixtures, 16 kHz) and six espeak-ng sentences
 * made here at its own 22.05 kHz (content up to 11 kHz, fricatives included); each with
 * 0, 500 and 1000 samples of lead silence (frames fall differently on the words), and
 * brought up to the device rate with two upsampler cutoffs (0.97 and 0.9).
 *
 * Goals, per device rate: `ours-max-44k` / `ours-max-48k`, our segments are never more than
 * one frame from the 16 kHz reference; `ours-vs-vadweb-44k` / `-48k`, ours are no further from
 * it in total (Σ|Δ| over every start and end) than vad-web's: the ratio at most 1.
 *
 *   node bench/vad-resampler.mjs
 *   node bench/vad-resampler.mjs --quick   the fixtures and one sentence, one lead, one upsampler
 * Needs ffmpeg and espeak-ng. Writes bench/results/vad-resampler.json (bench/_report.mjs);
 * exit 1 on a missed goal, 2 when it could not measure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { tsImport } from 'tsx/esm/api';
import { ROOT } from './_setup.mjs';
import { formatNumber, isQuick, ratioOf, runBench } from './_report.mjs';

const { StreamingResampler } = await tsImport('../src/features/voice/workers/dsp/resampler.ts', import.meta.url);
const { FrameProcessor } = await tsImport('../src/features/voice/workers/vad/frameProcessor.ts', import.meta.url);
const { SileroLegacy } = await tsImport('../src/features/voice/workers/vad/silero.ts', import.meta.url);
const { Resampler: VadWebResampler } = createRequire(import.meta.url)('@ricky0123/vad-web/dist/resampler.js');

const FRAME = 1536;
const SENTENCES = [
  'Where is the nearest store?',
  'What are your opening hours?',
  'Do you have any discounts this week?',
  'Tell me about the new products.',
  'Shall I fetch the fish from the ship, sir?',
  'She sells sea shells; his cheese is fresh.',
];
const FIXTURES = ['q-nearest-store.wav', 'q-opening-hours.wav', 'q-discount.wav', 'q-new-products.wav'];
const QUICK = isQuick();
/** Samples of lead silence, so frames fall differently on the words. */
const LEADS = QUICK ? [0] : [0, 500, 1000];
/** The upsamplers' cutoffs (fractions of the source's Nyquist) that make the device-rate audio. */
const CUTOFFS = QUICK ? [0.97] : [0.97, 0.9];
const DEVICE_RATES = [44_100, 48_000];

const ffmpeg = (args, input) => execFileSync('ffmpeg', ['-v', 'error', ...args], { input, maxBuffer: 1 << 28 });
const floats = (buffer) => new Float32Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
const raw = (rate) => ['-f', 'f32le', '-ar', String(rate), '-ac', '1'];

function frames16k(samples) {
  const frames = [];
  for (let i = 0; i + FRAME <= samples.length; i += FRAME) frames.push(samples.slice(i, i + FRAME));
  return frames;
}

/** Fed in 128-sample render quanta, as the capture worklet is. */
function viaOurs(samples, rate) {
  const resampler = new StreamingResampler(rate);
  const out = [];
  for (let i = 0; i < samples.length; i += 128) for (const v of resampler.process(samples.subarray(i, i + 128))) out.push(v);
  return frames16k(Float32Array.from(out));
}

function viaVadWeb(samples, rate) {
  const resampler = new VadWebResampler({ nativeSampleRate: rate, targetSampleRate: 16_000, targetFrameSize: FRAME });
  const frames = [];
  for (let i = 0; i < samples.length; i += 128) frames.push(...resampler.process(samples.subarray(i, i + 128)));
  return frames;
}

ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
const model = await SileroLegacy.create(ort, readFileSync(join(ROOT, 'node_modules/@ricky0123/vad-web/dist/silero_vad_legacy.onnx')));

async function segments(frames) {
  model.resetState();
  const vad = new FrameProcessor();
  const found = [];
  let start = -1;
  for (const frame of frames) {
    const probability = await model.process(frame);
    for (const event of vad.process(frame, probability)) {
      if (event.type === 'speechStart') start = event.frame;
      else if (event.type === 'speechEnd') found.push([start, event.endFrame]);
    }
  }
  return found;
}

/** Frames between two segment lists; a different number of segments counts as 99. */
function distance(a, b) {
  if (a.length !== b.length) return { total: 99, max: 99 };
  let total = 0;
  let max = 0;
  a.forEach(([start, end], i) => {
    const d = [Math.abs(start - b[i][0]), Math.abs(end - b[i][1])];
    total += d[0] + d[1];
    max = Math.max(max, ...d);
  });
  return { total, max };
}

const kHz = (rate) => `${Number((rate / 1000).toFixed(1))} kHz`;
const tag = (rate) => `${Math.floor(rate / 1000)}k`;

await runBench('vad-resampler', { what: 'speech segments from our capture resampler and vad-web\'s against the same speech converted to 16 kHz' }, async (report) => {
  const sentences = QUICK ? SENTENCES.slice(0, 1) : SENTENCES;
  report.settings = { sources: FIXTURES.length + sentences.length, leads: LEADS, upsamplerCutoffs: CUTOFFS, deviceRates: DEVICE_RATES, frame: FRAME };
  const work = mkdtempSync(join(tmpdir(), 'vad-resampler-'));
  const results = [];
  try {
    const sources = [
      ...FIXTURES.map((name) => ({ name, path: join(ROOT, 'tests', 'fixtures', name), rate: 16_000 })),
      ...sentences.map((text, i) => {
        const path = join(work, `espeak-${i}.wav`);
        execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', path, text]);
        return { name: `espeak 22.05 kHz #${i + 1}`, path, rate: 22_050 };
      }),
    ];
    for (const deviceRate of DEVICE_RATES) {
      const score = { ours: { total: 0, max: 0 }, vadweb: { total: 0, max: 0 }, oursVsVadweb: 0, cases: 0, segments: 0 };
      for (const source of sources) {
        for (const lead of LEADS) {
          const audio = ffmpeg(['-i', source.path, '-af', `adelay=${lead}S:all=1,apad=pad_len=24000`, ...raw(source.rate), '-']);
          const at16k = source.rate === 16_000 ? floats(audio) : floats(ffmpeg([...raw(source.rate), '-i', '-', '-af', 'aresample=16000:cutoff=0.97:filter_size=64', ...raw(16_000), '-'], audio));
          const reference = await segments(frames16k(at16k));
          for (const cutoff of CUTOFFS) {
            const device = floats(ffmpeg([...raw(source.rate), '-i', '-', '-af', `aresample=${deviceRate}:cutoff=${cutoff}`, ...raw(deviceRate), '-'], audio));
            const ours = await segments(viaOurs(device, deviceRate));
            const vadweb = await segments(viaVadWeb(device, deviceRate));
            for (const [name, found] of [['ours', ours], ['vadweb', vadweb]]) {
              const d = distance(found, reference);
              score[name].total += d.total;
              score[name].max = Math.max(score[name].max, d.max);
            }
            score.oursVsVadweb = Math.max(score.oursVsVadweb, distance(ours, vadweb).max);
            score.cases += 1;
            score.segments += reference.length;
          }
        }
      }
      results.push({ deviceRate, ...score });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  report.figures = { byDeviceRate: results };
  for (const r of results) {
    // No segment in the reference would make every comparison trivially equal.
    if (r.segments === 0) report.error(`${kHz(r.deviceRate)}: the 16 kHz reference found no speech segment`);
    report.goal(`ours-max-${tag(r.deviceRate)}`, { label: `${kHz(r.deviceRate)}: ours, largest |Δ| from the 16 kHz reference (start or end)`, value: r.ours.max, limit: 1, unit: 'frames' });
    const ratio = report.ratio(`ours-vs-vadweb-${tag(r.deviceRate)}`, {
      label: `${kHz(r.deviceRate)}: Σ|Δ| from the 16 kHz reference, ours / vad-web's`,
      subject: ['ours', r.ours.total],
      reference: ['vad-web', r.vadweb.total],
      unit: 'frames',
      digits: 2,
    });
    report.goal(`ours-vs-vadweb-${tag(r.deviceRate)}`, { label: `${kHz(r.deviceRate)}: Σ|Δ| from the 16 kHz reference, ours / vad-web's`, value: ratio, limit: 1, unit: '×', digits: 2 });
  }
  report.table(
    `Segment start/end frames against the same speech converted to 16 kHz (${report.settings.sources} sources × ${LEADS.length} leads × ${CUTOFFS.length} upsamplers per device rate)`,
    ['device rate', 'segments', 'ours Σ|Δ| / max', 'vad-web Σ|Δ| / max', 'ours / vad-web (Σ)', 'max Δ ours vs vad-web'],
    results.map((r) => [kHz(r.deviceRate), r.segments, `${r.ours.total} / ${r.ours.max}`, `${r.vadweb.total} / ${r.vadweb.max}`, formatNumber(ratioOf(r.ours.total, r.vadweb.total), 2), r.oursVsVadweb]),
  );
  for (const row of report.tables[0].rows) console.log(`  ${row.join(' | ')}`);
});
