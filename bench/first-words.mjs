/**
 * The first seconds of a hands-free call, both ways: is a question the visitor starts 1.5 s
 * after tapping Start call heard word for word, and does the visitor hear the avatar's
 * answer to it from its first word?
 *
 * Two ways the question reaches the microphone:
 *   - null sink: Chromium's file-backed fake microphone plays the question once, 1.5 s of
 *     silence first, from the moment the app opens it; the avatar plays into the suite's
 *     PulseAudio null sink, so there is no echo, only the browser's own capture path;
 *   - echo path: bench/capture.mjs's acoustic path (the avatar's sink looped back into the
 *     default microphone 80 ms late at −10 dB, Chromium's real capture, no fake device), and
 *     the question played into it with paplay 1.5 s after the tap.
 * Three moments:
 *   - over the greeting: the call starts while the avatar speaks its greeting (the stand-in's
 *     fault greeting-long makes it 25 s, so the call never races its end);
 *   - silent avatar: the call starts after the greeting is over;
 *   - over the first answer (echo path only: without an echo there is nothing for the echo
 *     canceller to suppress): as silent avatar, then a second question, "what are your
 *     opening hours", played 1 s into the avatar's answer to the first, which now plays at
 *     full voice to a canceller still in its first seconds. The second question is the one judged.
 * Two builds, in the same run, against the same stand-in:
 *   - app: this checkout;
 *   - before: the reference (commit REFERENCE_REF, built from git here), the app whose echo
 *     canceller's warm-up lowered the avatar from every Start call tap until it had spoken 3 s
 *     (docs/decisions.md, "The first seconds of a call").
 * A run counts as heard when the message the call sends is the question word for word
 * (bench/_echo.mjs's word accuracy is 1). The answer is the first reply that begins after
 * the tap: the page notes its <audio>'s loudness as played (0 muted or paused, else its
 * volume) every 10 ms and the replies' commands as they arrive (tests/support/avatarLoudness.ts),
 * and the run counts how long the answer's first second, and its first ANSWER_WINDOW_MS,
 * played under half volume.
 * Goals (the app, every way and moment): at least 95 % of the runs heard word for word, and
 * in no run more than 300 ms of the answer's first second under half volume.
 *
 *   node bench/first-words.mjs           FIRST_WORDS_RUNS=20 by default (FIRST_WORDS_REFERENCE_RUNS for the
 *                                        reference, the same by default); BENCH_SKIP_BUILD=1 reuses the builds
 *   node bench/first-words.mjs --quick   2 runs a cell: checks the wiring
 *   FIRST_WORDS_ONLY="echo path:over the greeting" node bench/first-words.mjs   that cell alone
 * Writes bench/results/first-words.json; exit 1 on a missed goal, 2 when it could not measure.
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { chromium } from '@playwright/test';
import { buildApp, buildAppAt, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';
import { sentFrames, wordAccuracy } from './_echo.mjs';

const { startAudioOutput, pactl, setSinkInputGainDb, SINK } = await tsImport('../tests/support/audioOutput.ts', import.meta.url);
const { judgeReply, LOUDNESS_POLL_MS, recordAvatarTimeline, replyAfter } = await tsImport('../tests/support/avatarLoudness.ts', import.meta.url);

const RUNS = isQuick() ? 2 : Number(process.env.FIRST_WORDS_RUNS ?? 20);
const REFERENCE_RUNS = isQuick() ? 2 : Number(process.env.FIRST_WORDS_REFERENCE_RUNS ?? RUNS);
const QUESTION = 'where is the nearest store';
const QUESTION_FILE = join(ROOT, 'tests', 'fixtures', 'q-nearest-store.wav');
const SECOND_QUESTION = 'what are your opening hours';
const SECOND_FILE = join(ROOT, 'tests', 'fixtures', 'q-opening-hours.wav');
/** When the visitor asks the second question, after the first answer began to speak (ms). */
const INTO_ANSWER_MS = 1000;
/** When the visitor starts, after the tap on Start call. */
const LEAD_S = 1.5;
const COUPLING_DB = -10;
const GOAL = 0.95;
/** How much of the answer is judged: its first seconds (or all of it, if shorter). */
const ANSWER_WINDOW_MS = 3000;
/** What an answer's first second may play under half volume (issue 45). */
const FIRST_SECOND_LIMIT_MS = 300;
/** How long after the question went up its answer may take to begin and play its window. */
const ANSWER_TIMEOUT_MS = 45_000;
const APP_DIR = join(ROOT, '.cache', 'bench-dist-first-words');
/** The app whose warm-up lowered the avatar from every Start call tap (src/sagas/echoWarmup.ts in that commit, before issue 45). */
const REFERENCE_REF = process.env.FIRST_WORDS_REFERENCE_REF ?? '2b44908';
const REFERENCE_DIR = join(ROOT, '.cache', 'bench-dist-first-words-before');
/** FIRST_WORDS_ONLY="echo path:over the greeting" measures that cell alone (its row is written; the others are not). */
const ONLY = process.env.FIRST_WORDS_ONLY?.split(':') ?? null;
const WAYS = ['null sink', 'echo path'].filter((w) => !ONLY || w === ONLY[0]);
const OVER_ANSWER = 'over the first answer';
const momentsOf = (way) =>
  ['over the greeting', 'silent avatar', ...(way === 'echo path' ? [OVER_ANSWER] : [])].filter((m) => !ONLY || m === ONLY[1]);
/** The question a cell judges. */
const questionOf = (moment) => (moment === OVER_ANSWER ? SECOND_QUESTION : QUESTION);
const BUILDS = [
  { name: 'app', dir: APP_DIR, runs: RUNS },
  { name: 'before', dir: REFERENCE_DIR, runs: REFERENCE_RUNS },
];

/** The question after LEAD_S of silence, played once by Chromium's fake microphone. */
function leadFile() {
  const wav = readFileSync(QUESTION_FILE);
  const data = Buffer.concat([Buffer.alloc(Math.round(LEAD_S * 16_000) * 2), wav.subarray(44)]);
  const header = Buffer.from(wav.subarray(0, 44));
  header.writeUInt32LE(36 + data.length, 4);
  header.writeUInt32LE(data.length, 40);
  const dir = join(ROOT, '.cache', 'first-words');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `question-after-${LEAD_S}s.wav`);
  writeFileSync(file, Buffer.concat([header, data]));
  return `${file}%noloop`;
}

/** bench/capture.mjs's echo path in the suite's PulseAudio daemon: the avatar's sink into the default microphone. */
function echoPath(server) {
  pactl(server, 'load-module', 'module-null-sink', 'sink_name=mic', 'sink_properties=device.description=echo-mic');
  pactl(server, 'load-module', 'module-loopback', `source=${SINK}.monitor`, 'sink=mic', 'latency_msec=80', 'source_dont_move=true', 'sink_dont_move=true');
  pactl(server, 'load-module', 'module-remap-source', 'source_name=micsrc', 'master=mic.monitor', 'source_properties=device.description=echo-mic-source');
  pactl(server, 'set-default-source', 'micsrc');
  const line = pactl(server, 'list', 'short', 'sink-inputs').trim().split('\n').find((l) => l.includes('module-loopback'));
  if (!line) throw new Error('the echo loopback did not start');
  setSinkInputGainDb(server, line.split('\t')[0], COUPLING_DB);
}

function paplay(server, file) {
  return new Promise((resolve, reject) => {
    const child = spawn('paplay', ['--device=mic', file], { env: { ...process.env, PULSE_SERVER: server }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`paplay exited ${code}`))));
  });
}

async function outFrames(page, base) {
  const events = await (await page.request.get(`${base}/__standin/events`)).json();
  return events.filter((e) => e.channel === 'signaling' && e.dir === 'out').map((e) => e.body);
}

async function until(check, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * The answer to the question: how it was heard (tests/support/avatarLoudness.ts replyLoudness),
 * or null when no reply began within ANSWER_TIMEOUT_MS.
 */
async function answerHeard(page, tappedAt) {
  let heard = null;
  await until(
    async () => (heard = judgeReply(await page.evaluate(() => window.__avatarTimeline), tappedAt, await page.evaluate(() => Date.now()), ANSWER_WINDOW_MS)) !== null,
    "the answer's first seconds",
    ANSWER_TIMEOUT_MS,
  ).catch(() => {});
  if (!heard) return null;
  const { firstSecondUnderHalfMs, underHalfMs, heardMs } = heard;
  return { firstSecondUnderHalfMs, underHalfMs, heardMs };
}

/** The first visitor message the app sent from `from` on (page clock), within 20 s, or null. */
async function messageFrom(page, from) {
  let message = null;
  await until(
    async () => {
      const sent = await page.evaluate(() => window.__sent);
      message = sent.find((s) => s.t >= from && s.frame.type === 'message_text' && s.frame.source === 'nlpmsg') ?? null;
      return message !== null;
    },
    'the question sent',
    20_000,
  ).catch(() => {});
  return message;
}

/** Over the first answer: once it has spoken INTO_ANSWER_MS, the second question; when it was asked (page clock), or null. */
async function askOverAnswer(page, server, tappedAt) {
  let first = null;
  await until(
    async () => (first = replyAfter((await page.evaluate(() => window.__avatarTimeline)).commands, tappedAt)) !== null,
    'the first answer speaking',
    ANSWER_TIMEOUT_MS,
  ).catch(() => {});
  if (!first) return null;
  const now = await page.evaluate(() => Date.now());
  await page.waitForTimeout(Math.max(0, first.speakingAt + INTO_ANSWER_MS - now));
  const askedAt = await page.evaluate(() => Date.now());
  await paplay(server, SECOND_FILE);
  return askedAt;
}

/**
 * One call: the text the app sent for the question judged (or null), and how its answer was
 * heard (or null). Over the greeting, the call starts once it is spoken (25 s: the call never races its end).
 */
async function call(browser, base, server, { way, moment }) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => window.localStorage.setItem('lang', 'en'));
    await page.addInitScript(sentFrames);
    // tsx names functions and classes with a helper the page does not have.
    await page.addInitScript(() => (window.__name = (f) => f));
    await page.addInitScript(recordAvatarTimeline, LOUDNESS_POLL_MS);
    await page.request.delete(`${base}/__standin/events`);
    if (moment === 'over the greeting') await page.request.post(`${base}/__standin/faults`, { data: { faults: ['greeting-long'] } });
    else await page.request.delete(`${base}/__standin/faults`);
    await page.goto(`${base}/25d/demo`);
    await page.getByRole('button', { name: 'Start chat', exact: true }).click({ timeout: 60_000 });
    await page.getByRole('button', { name: 'End chat', exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
    const said = moment === 'over the greeting' ? 'nlp_running' : 'nlp_end';
    await until(async () => (await outFrames(page, base)).some((f) => f.command === said), `the greeting's ${said}`);
    const tappedAt = await page.evaluate(() => Date.now());
    await page.getByRole('button', { name: 'Start call', exact: true }).click();
    if (way === 'echo path') {
      await page.waitForTimeout(LEAD_S * 1000);
      await paplay(server, QUESTION_FILE);
    }
    let message = await messageFrom(page, tappedAt);
    let askedAt = tappedAt;
    if (moment === OVER_ANSWER) {
      // The first question unheard leaves no answer to speak over: the run judges nothing.
      askedAt = message ? await askOverAnswer(page, server, tappedAt) : null;
      message = askedAt === null ? null : await messageFrom(page, askedAt);
    }
    const answer = message ? await answerHeard(page, askedAt) : null;
    await page.getByRole('button', { name: 'End chat', exact: true }).click().catch(() => {});
    await page.waitForTimeout(500);
    return { text: message?.frame.text ?? null, answer };
  } finally {
    await context.request.delete(`${base}/__standin/faults`).catch(() => {});
    await context.close();
  }
}

await runBench('first-words', { what: "a question in a call's first seconds (over the greeting, with the avatar silent, over its first answer), and the answer after it as the visitor heard it", chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { runs: RUNS, referenceRuns: REFERENCE_RUNS, answerWindowMs: ANSWER_WINDOW_MS, leadSeconds: LEAD_S, couplingDb: COUPLING_DB, question: QUESTION, secondQuestion: SECOND_QUESTION, intoAnswerMs: INTO_ANSWER_MS, reference: REFERENCE_REF, only: ONLY?.join(':') ?? 'every cell' };
  if (process.env.BENCH_SKIP_BUILD !== '1' || !existsSync(join(APP_DIR, 'index.html'))) buildApp(APP_DIR);
  buildAppAt(REFERENCE_REF, REFERENCE_DIR, 'first-words');
  const rows = [];
  report.figures = { rows };
  for (const way of WAYS) {
    const output = await startAudioOutput();
    try {
      if (way === 'echo path') echoPath(output.server);
      const args = way === 'null sink' ? [...CHROMIUM_ARGS, `--use-file-for-fake-audio-capture=${leadFile()}`] : CHROMIUM_ARGS.filter((a) => a !== '--use-fake-device-for-media-stream');
      const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args, ignoreDefaultArgs: ['--mute-audio'], env: { ...process.env, PULSE_SERVER: output.server } });
      try {
        for (const build of BUILDS) {
          const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: build.dir } });
          try {
            for (const moment of momentsOf(way)) {
              const texts = [];
              const answers = [];
              for (let i = 0; i < build.runs; i += 1) {
                const { text, answer } = await call(browser, standin.url, output.server, { way, moment });
                texts.push(text);
                answers.push(answer);
                process.stdout.write(`[first-words] ${build.name}, ${way}, ${moment} #${i + 1}: ${JSON.stringify(text)}, answer ${JSON.stringify(answer)}\n`);
              }
              const heard = texts.filter((t) => t !== null && wordAccuracy(questionOf(moment), t) === 1).length;
              rows.push({ build: build.name, way, moment, runs: build.runs, heard, rate: heard / build.runs, texts, answers });
            }
          } finally {
            await standin.stop();
          }
        }
      } finally {
        await browser.close();
      }
    } finally {
      await output.stop();
    }
  }
  const cellOf = (row) => rows.find((r) => r.build === 'before' && r.way === row.way && r.moment === row.moment);
  const answered = (row) => row.answers.filter((a) => a !== null);
  const worst = (row, key) => Math.max(0, ...answered(row).map((a) => a[key]));
  /** The answer as the visitor heard it: ms under half volume, worst run, in its first second and its first window. */
  const answerCell = (row) =>
    row ? `${worst(row, 'firstSecondUnderHalfMs')} / ${worst(row, 'underHalfMs')} ms (${answered(row).length} answers)` : '—';
  report.table(
    `Both ways: questions heard word for word, and the answer after each as the visitor heard it (ms under half volume, worst run: its first second / its first ${ANSWER_WINDOW_MS / 1000} s)`,
    ['microphone', 'moment', 'heard: the app', `heard: before (${REFERENCE_REF})`, 'answer under half volume: the app', 'answer under half volume: before'],
    rows
      .filter((r) => r.build === 'app')
      .map((row) => {
        const before = cellOf(row);
        return [row.way, row.moment, `${row.heard}/${row.runs}`, before ? `${before.heard}/${before.runs}` : '—', answerCell(row), answerCell(before)];
      }),
  );
  for (const row of rows.filter((r) => r.build === 'app')) {
    const cell = `${row.way} ${row.moment}`.replace(/\s+/g, '-');
    report.goal(cell, {
      label: `questions heard word for word, ${row.way}, ${row.moment} (the app, ${row.heard}/${row.runs})`,
      value: row.rate,
      limit: GOAL,
      cmp: '>=',
      digits: 2,
    });
    // A question sent and never answered is a run this goal could not judge: it counts against it.
    const unanswered = row.texts.filter((t, i) => t !== null && row.answers[i] === null).length;
    if (unanswered > 0) report.note(`${row.way}, ${row.moment}: ${unanswered} question(s) sent without an answer within ${ANSWER_TIMEOUT_MS / 1000} s`);
    report.goal(`${cell}-answer`, {
      label: `the answer's first second under half volume, worst run, ${row.way}, ${row.moment} (the app, ${answered(row).length} answers)`,
      value: unanswered > 0 ? Infinity : worst(row, 'firstSecondUnderHalfMs'),
      limit: FIRST_SECOND_LIMIT_MS,
      cmp: '<=',
      unit: 'ms',
      digits: 0,
    });
  }
});
