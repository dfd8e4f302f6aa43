/**
 * How many visitors' sessions the stand-in holds at once on this machine: N
 * sessions started together, each with its media (a werift peer receiving the
 * avatar's video), its signaling socket and a voice turn (a spoken question
 * recognised by the stand-in's speech service through the Speech SDK, then
 * answered with speech: the avatar's voice in its audio, not the text alone), all kept
 * live until every one has its answer. N grows (1, 2, 4, 6, 8, 10, 12, 16) until a step
 * has a session whose first video packet came 5 s or more after its start, whose
 * question was misheard, or that failed. The figure is the
 * largest N that held; the goal is the stand-in's own room cap (8): the demo
 * should hold as many sessions as it lets start. The reference in the same run
 * is one session alone.
 *
 * Runs tests/support/visitor.ts against a stand-in of its own (STANDIN_MAX_ROOMS=64,
 * no TURN relay, no app build: a stub page). `--quick`: steps 1 and 2 only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { EXIT, isQuick, runBench } from './_report.mjs';

const { startStandin } = await tsImport('../tests/support/standin.ts', import.meta.url);
const { visitSession } = await tsImport('../tests/support/visitor.ts', import.meta.url);
const { childPids, rssMb, samplePeak } = await tsImport('../tests/support/processProbe.ts', import.meta.url);

const FIRST_FRAME_LIMIT_MS = 5_000;
const ROOM_CAP = 8;
const STEPS = isQuick() ? [1, 2] : [1, 2, 4, 6, 8, 10, 12, 16];
const VOICE = fileURLToPath(new URL('../tests/fixtures/q-nearest-store.wav', import.meta.url));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s[Math.floor((s.length - 1) / 2)];
};

/** N sessions at once, all held live until the last is answered. */
async function step(url, pid, n) {
  let release;
  const allAnswered = new Promise((resolve) => (release = resolve));
  let answered = 0;
  const rss = samplePeak(() => rssMb(pid), 100);
  const ffmpeg = samplePeak(() => childPids(pid, 'ffmpeg').length, 100);
  const outcomes = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      visitSession(url, {
        voiceWav: VOICE,
        deviceId: `H5load${n}x${i}`,
        timeoutMs: 60_000,
        hold: () => {
          if (++answered === n) release();
          return allAnswered;
        },
      }).catch((err) => {
        // A failed session must not hold the others for ever.
        if (++answered === n) release();
        throw err;
      }),
    ),
  );
  rss.stop();
  ffmpeg.stop();
  const ok = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
  const failures = outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason?.message ?? o.reason));
  const firstFrames = ok.map((r) => r.firstFrameMs);
  const answers = ok.map((r) => r.answerMs);
  const misheard = ok.filter((r) => r.question !== 'where is the nearest store').map((r) => r.question);
  return {
    n,
    // A misheard question is a turn that did not work, even if something was answered.
    held: failures.length === 0 && misheard.length === 0 && firstFrames.every((ms) => ms < FIRST_FRAME_LIMIT_MS),
    firstFrameMedian: median(firstFrames),
    firstFrameMax: firstFrames.length ? Math.max(...firstFrames) : null,
    answerMedian: median(answers),
    answerMax: answers.length ? Math.max(...answers) : null,
    misheard,
    spokenMax: ok.length ? Math.max(...ok.map((r) => r.spokenMs)) : null,
    failures,
    peakRssMb: Math.round(rss.max),
    peakFfmpeg: ffmpeg.max,
  };
}

const data = await runBench(
  'standin-load',
  { what: `concurrent visitor sessions (media, signaling, a voice turn) the stand-in holds with every first video packet under ${FIRST_FRAME_LIMIT_MS / 1000} s` },
  async (report) => {
    const publicDir = mkdtempSync(join(tmpdir(), 'standin-load-'));
    writeFileSync(join(publicDir, 'index.html'), '<!doctype html><title>stub</title>');
    const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: publicDir, STANDIN_TURN: '0', STANDIN_MAX_ROOMS: '64' } });
    const steps = [];
    try {
      for (const n of STEPS) {
        const result = await step(standin.url, standin.pid, n);
        steps.push(result);
        console.log(`  ${n} at once: ${result.held ? 'held' : 'did not hold'}; first frame median ${result.firstFrameMedian} ms, max ${result.firstFrameMax} ms; answer max ${result.answerMax} ms; ${result.failures.length} failed`);
        if (!result.held) break;
        // The rooms of the step are stopped by their visitors; their media take a moment to go.
        await new Promise((r) => setTimeout(r, 2_000));
      }
    } finally {
      await standin.stop();
      rmSync(publicDir, { recursive: true, force: true });
    }
    const held = steps.filter((s) => s.held).map((s) => s.n);
    const most = held.length ? Math.max(...held) : 0;
    const alone = steps[0];
    const atMost = steps.find((s) => s.n === most);
    if (!alone || alone.firstFrameMedian === null) throw new Error(`one session alone did not go live: ${alone?.failures.join('; ') ?? 'no step ran'}`);
    report.goal('sessions-held', { label: `sessions at once with every first video packet < ${FIRST_FRAME_LIMIT_MS / 1000} s and every voice turn heard right and answered with speech`, value: most, limit: isQuick() ? 2 : ROOM_CAP, cmp: '>=', unit: 'sessions' });
    if (atMost) {
      report.ratio('first-frame-at-most-vs-alone', { label: `median first video packet, ${most} at once / 1 alone`, subject: [`${most} at once`, atMost.firstFrameMedian], reference: ['1 alone', alone.firstFrameMedian], unit: 'ms' });
    }
    report.table(
      'Sessions started together',
      ['sessions', 'held', 'first frame median', 'first frame max', 'answer max', 'spoken max', 'misheard', 'failed', 'peak RSS', 'peak ffmpeg'],
      steps.map((s) => [s.n, s.held ? 'yes' : 'no', `${s.firstFrameMedian ?? '—'} ms`, `${s.firstFrameMax ?? '—'} ms`, `${s.answerMax ?? '—'} ms`, `${s.spokenMax ?? '—'} ms`, s.misheard.length, s.failures.length, `${s.peakRssMb} MB`, s.peakFfmpeg]),
    );
    const broke = steps.find((s) => !s.held);
    if (broke?.failures.length) report.note(`At ${broke.n} sessions: ${[...new Set(broke.failures)].slice(0, 3).join('; ')}`);
    const misheard = steps.flatMap((s) => s.misheard);
    if (misheard.length) report.note(`Voice turns recognised otherwise than "where is the nearest store": ${[...new Set(misheard)].join('; ')}`);
    report.figures.steps = steps;
  },
);
// Closed werift peers and Speech SDK recognizers of the visitors leave handles behind that keep
// Node running once everything is written: end here with the verdict's exit code.
process.exit(EXIT[data.status]);
