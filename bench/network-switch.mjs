/**
 * A phone that changes networks over and over in one call (issue "Calls that survive a phone's
 * day", point 1): as a phone moves from Wi-Fi to cellular, its address changes and every path
 * it had dies at once (TCP connections, ICE pairs), while the server stays where it was.
 *
 * The set-up of tests/e2e/lan.spec.ts: the stand-in with `--lan` (HTTPS on every interface,
 * its own certificate), Chromium in a network namespace of its own joined to it by a veth
 * pair (tests/support/impairedLink.ts, nothing impaired), the microphone a file asking two of
 * the demo's questions over and over (Chromium's fake device loops it). The bench goes live,
 * starts a call, waits for a spoken question answered, then switches the browser's address
 * (ImpairedLink.switchAddress: the old one deleted, the next one of the subnet added) SWITCHES
 * times in a row, each once the one before has recovered: the video steady again and the
 * call's next spoken question answered. For each switch, by the page's own clock, from the new
 * address up:
 *   - to the avatar's video advancing again, steadily (the first new frame from which it kept
 *     advancing for 2 s with no gap of 400 ms: what the jitter buffer still held just after the
 *     switch does not count);
 *   - to the next answer shown: the reply to the first question the client sent the stand-in
 *     (nlpmsg) after the switch, when it appears in the chat log.
 * Any alert shown, and the session's end, are recorded; a session that ended leaves the
 * switches after it missed.
 *
 * Goals: time to video, median and worst, ≤ 3000 ms (a switch whose video never came back
 * counts as the VIDEO_WAIT_MS waited); every switch's next question answered (within
 * ANSWER_WAIT_MS) with no alert shown.
 *
 *   node bench/network-switch.mjs            10 switches (BENCH_SKIP_BUILD=1 reuses the build)
 *   node bench/network-switch.mjs --quick    1 switch: checks the wiring
 *   env: BENCH_NETWORK_SWITCHES (10; 1 quick)
 * Needs root (network namespaces) and coturn: without them it cannot measure (exit 2).
 * Writes bench/results/network-switch.json (bench/_report.mjs); exit 1 on a missed goal, 2 when it could not measure.
 */
/* global window, document */
import { spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, devices } from '@playwright/test';
import { tsImport } from 'tsx/esm/api';
import { buildApp, CHROMIUM_ARGS, CHROMIUM_PATH, ROOT, startStandin } from './_setup.mjs';
import { isQuick, runBench } from './_report.mjs';

const { createImpairedLink, impairmentUnavailable } = await tsImport('../tests/support/impairedLink.ts', import.meta.url);
const { startAudioOutput } = await tsImport('../tests/support/audioOutput.ts', import.meta.url);

const QUICK = isQuick();
const SWITCHES = Number(process.env.BENCH_NETWORK_SWITCHES ?? (QUICK ? 1 : 10));
const GOAL_VIDEO_MS = 3_000;
/** How long a switch waits for the video, then for the next answer, before it is a miss. */
const VIDEO_WAIT_MS = 30_000;
const ANSWER_WAIT_MS = 60_000;
/** The video counts as back once it has advanced this long with no gap of GAP_MS. */
const STEADY_MS = 2_000;
const GAP_MS = 400;
const OUT_DIR = join(ROOT, '.cache', 'bench-dist-network-switch');
const SPOKEN = join(ROOT, 'tests', 'fixtures', 'call-two-questions.wav');
const QUESTION = /where is the nearest store|what are your opening hours/i;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The base64 SHA-256 of a certificate's public key, as --ignore-certificate-errors-spki-list takes it. */
function spkiHash(pem) {
  const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}

/** A GET of the stand-in's control endpoint over its loopback (its own certificate, taken as it is: it is our child). */
function controlJson(origin, path) {
  return new Promise((resolve, reject) => {
    httpsGet(`${origin}${path}`, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
    }).on('error', reject);
  });
}

/**
 * Questions the client sent (nlpmsg) after stand-in time `after`, each with the first sentence
 * the stand-in spoke after it (its reply: replies have msg_ids of their own), if any yet.
 */
function turnsAfter(list, after) {
  const later = list.filter((e) => e.t > after && e.channel === 'signaling');
  return later.flatMap((e, i) => {
    if (e.dir !== 'in' || e.body.source !== 'nlpmsg') return [];
    const reply = later.slice(i + 1).find((f) => f.dir === 'out' && f.body.msg_type === 'tts' && typeof f.body.text === 'string');
    return [{ question: String(e.body.text), answer: reply ? String(reply.body.text) : null }];
  });
}

/** See tests/e2e/lan.spec.ts: the first advance after `from` from which the video went on steadily, or null. */
function steadyVideoFrom(frames, from) {
  for (let i = 0; i < frames.length; i += 1) {
    if (frames[i] < from) continue;
    let j = i;
    while (j + 1 < frames.length && frames[j + 1] - frames[j] <= GAP_MS) j += 1;
    if (frames[j] - frames[i] >= STEADY_MS) return frames[i];
    i = j;
  }
  return null;
}

/**
 * Runs in the page: what it lived through, by its own clock (Date.now(), the bench's too):
 * the avatar's video advancing (a 50 ms look), chat messages when first shown, alerts, and
 * the online/offline and navigator.connection events.
 */
function recordSwitchLog() {
  const log = { net: [], frames: [], chat: [], alerts: [] };
  window.__switchLog = log;
  const connection = navigator.connection;
  const net = (type) => log.net.push({ t: Date.now(), type, onLine: navigator.onLine, connection: connection ? `${connection.type ?? '-'} ${connection.effectiveType ?? '-'}` : null });
  window.addEventListener('online', () => net('online'));
  window.addEventListener('offline', () => net('offline'));
  connection?.addEventListener('change', () => net('connection change'));
  let video = null;
  let frames = 0;
  const messages = new Map();
  const alerts = new WeakSet();
  setInterval(() => {
    const now = Date.now();
    const shown = document.querySelector('.avatar-video video');
    const count = shown ? shown.getVideoPlaybackQuality().totalVideoFrames : 0;
    if (shown && (shown !== video ? count > 0 : count > frames)) log.frames.push(now);
    video = shown;
    frames = count;
    for (const el of document.querySelectorAll('.msg--me, .msg--ai')) {
      const words = el.textContent?.trim() ?? '';
      const entry = messages.get(el);
      if (entry) entry.text = words;
      else if (words) {
        const added = { t: now, who: el.classList.contains('msg--me') ? 'me' : 'ai', text: words };
        messages.set(el, added);
        log.chat.push(added);
      }
    }
    for (const el of document.querySelectorAll('[role="alert"], [role="alertdialog"]')) {
      if (alerts.has(el)) continue;
      alerts.add(el);
      log.alerts.push({ t: now, text: (el.querySelector('p') ?? el).textContent?.trim() ?? '' });
    }
  }, 50);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)];
};
const ms = (v) => (v === null ? '—' : `${v} ms`);

await runBench('network-switch', { what: `${SWITCHES} changes of the phone's address in one call: the avatar's video and the next spoken question's answer after each`, chromium: CHROMIUM_PATH }, async (report) => {
  report.settings = { switches: SWITCHES, goalVideoMs: GOAL_VIDEO_MS, videoWaitMs: VIDEO_WAIT_MS, answerWaitMs: ANSWER_WAIT_MS, steadyMs: STEADY_MS, gapMs: GAP_MS };
  const why = impairmentUnavailable();
  if (why) throw new Error(`network namespaces are not available here: ${why}`);
  const fixtures = spawnSync(process.execPath, [join(ROOT, 'scripts', 'make-fixtures.mjs')], { stdio: 'inherit' });
  if (fixtures.status !== 0) throw new Error('scripts/make-fixtures.mjs failed');
  buildApp(OUT_DIR);
  const output = await startAudioOutput();
  const link = await createImpairedLink();
  const config = mkdtempSync(join(tmpdir(), 'network-switch-config-'));
  let standin;
  let browser;
  const switches = [];
  report.figures.switches = switches;
  try {
    standin = await startStandin({ args: ['--lan'], env: { HOST: '0.0.0.0', XDG_CONFIG_HOME: config, STANDIN_PUBLIC_DIR: OUT_DIR } });
    const port = Number(new URL(standin.url).port);
    const control = `https://127.0.0.1:${port}`;
    const events = () => controlJson(control, '/__standin/events');
    const cert = readFileSync(join(config, 'avatar-chat', 'lan-cert', 'cert.pem'), 'utf8');
    browser = await chromium.launch({
      executablePath: link.chromiumWrapper,
      args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spkiHash(cert)}`, `--use-file-for-fake-audio-capture=${SPOKEN}`],
      ignoreDefaultArgs: ['--mute-audio'],
      env: { ...process.env, PULSE_SERVER: output.server },
    });
    const context = await browser.newContext({ ...devices['iPhone 12'], viewport: { width: 390, height: 844 }, locale: 'en-US' });
    const page = await context.newPage();
    const readLog = () => page.evaluate(() => window.__switchLog);
    const button = (name) => page.getByRole('button', { name, exact: true });
    const live = async () => (await button('End chat').count()) > 0 && (await page.getByRole('alert').count()) === 0;

    await page.goto(`https://${link.hostIp}:${port}/25d/demo`);
    await page.evaluate(recordSwitchLog);
    await button('Start chat').click({ timeout: 60_000 });
    await button('End chat').waitFor({ state: 'visible', timeout: 60_000 });
    await button('Start call').click({ timeout: 60_000 });
    await button('Hang up').waitFor({ state: 'visible', timeout: 45_000 });
    // The call works on the first network: a spoken question answered.
    const answeredAfter = async (mark) => turnsAfter(await events(), mark).filter((t) => QUESTION.test(t.question) && t.answer !== null);
    const deadline = Date.now() + ANSWER_WAIT_MS;
    while ((await answeredAfter(-1)).length === 0) {
      if (Date.now() > deadline) {
        const seen = await events();
        const heard = seen.filter((e) => e.channel === 'speech' && e.body.path === 'speech.phrase').length;
        const sent = turnsAfter(seen, -1).map((t) => t.question);
        const chat = (await readLog()).chat.map((m) => `${m.who}: ${m.text.slice(0, 40)}`);
        throw new Error(`no spoken question answered within ${ANSWER_WAIT_MS / 1000} s of the call's start, before any switch (phrases recognized: ${heard}; sent: ${sent.join(' | ') || 'none'}; chat: ${chat.join(' | ') || 'empty'})`);
      }
      await sleep(250);
    }

    for (let n = 1; n <= SWITCHES; n += 1) {
      if (!(await live())) {
        switches.push({ n, skipped: 'the session had ended', videoMs: null, answerMs: null, question: null, alerts: [] });
        continue;
      }
      const moved = await link.switchAddress();
      const mark = (await events()).at(-1)?.t ?? 0;
      const row = { n, from: moved.oldIp, to: moved.newIp, downToUpMs: moved.upAt - moved.downAt, videoMs: null, answerMs: null, question: null, alerts: [] };
      switches.push(row);
      // The video, steadily again.
      const videoDeadline = moved.upAt + VIDEO_WAIT_MS;
      for (;;) {
        const back = steadyVideoFrom((await readLog()).frames, moved.upAt);
        if (back !== null) {
          row.videoMs = back - moved.upAt;
          break;
        }
        if (Date.now() > videoDeadline || !(await live())) break;
        await sleep(250);
      }
      // The next spoken question, sent after the switch and answered.
      const answerDeadline = moved.upAt + ANSWER_WAIT_MS;
      for (;;) {
        const [turn] = await answeredAfter(mark);
        if (turn) {
          row.question = turn.question;
          // When its answer appeared in the chat log (its first sentence, by the page's clock).
          let shown = null;
          while (shown === null && Date.now() < answerDeadline) {
            shown = (await readLog()).chat.find((m) => m.who === 'ai' && m.t >= moved.upAt && m.text.includes(turn.answer)) ?? null;
            if (shown === null) await sleep(250);
          }
          row.answerMs = shown === null ? null : shown.t - moved.upAt;
          break;
        }
        if (Date.now() > answerDeadline || !(await live())) break;
        await sleep(250);
      }
      const log = await readLog();
      row.alerts = log.alerts.filter((a) => a.t >= moved.downAt).map((a) => a.text);
      row.netEvents = log.net.filter((e) => e.t >= moved.downAt - 1_000).map((e) => ({ ...e, t: e.t - moved.upAt }));
      // The WHEP requests of the reconnect (when each left, from the new address up, and how long it took).
      row.whep = await page.evaluate(
        (since) =>
          performance
            .getEntriesByType('resource')
            .filter((e) => e.name.includes('/rtc/v1/whep/') && !e.name.includes('action=delete') && performance.timeOrigin + e.startTime >= since)
            .map((e) => ({ at: Math.round(performance.timeOrigin + e.startTime), ms: Math.round(e.duration) })),
        moved.downAt,
      );
      row.whep = row.whep.map((w) => ({ at: w.at - moved.upAt, ms: w.ms }));
      console.log(
        `switch ${n}: ${row.from} → ${row.to}: video back ${ms(row.videoMs)}, next answer ${ms(row.answerMs)}${row.question ? ` ("${row.question}")` : ''}` +
          `${row.alerts.length ? `; alert: ${row.alerts.join(' | ')}` : ''}; WHEP offers at ${row.whep.map((w) => `${w.at} ms (${w.ms} ms)`).join(', ') || 'none'}; page network events: ${row.netEvents.map((e) => `${e.type} at ${e.t} ms`).join(', ') || 'none'}`,
      );
    }
    report.figures.delayLine = link.counts();

    // A switch whose video never came back counts as the time waited for it.
    const videos = switches.map((s) => s.videoMs ?? VIDEO_WAIT_MS);
    const answers = switches.filter((s) => s.answerMs !== null).map((s) => s.answerMs);
    const unanswered = switches.filter((s) => s.answerMs === null).length;
    const withAlert = switches.filter((s) => s.alerts.length > 0 || s.skipped).length;
    report.goal('video-median', { label: `new address up → the avatar's video advancing again, median of ${SWITCHES} switches`, value: median(videos), limit: GOAL_VIDEO_MS, unit: 'ms' });
    report.goal('video-worst', { label: `new address up → the avatar's video advancing again, worst of ${SWITCHES} switches`, value: Math.max(...videos), limit: GOAL_VIDEO_MS, unit: 'ms' });
    report.goal('answered', { label: `switches whose next spoken question was not answered within ${ANSWER_WAIT_MS / 1000} s`, value: unanswered, limit: 0, cmp: '==' });
    report.goal('no-alert', { label: 'switches after which an alert was shown or the session had ended', value: withAlert, limit: 0, cmp: '==' });
    if (switches.some((s) => s.videoMs === null)) report.note(`A switch whose video never came back within ${VIDEO_WAIT_MS / 1000} s counts as ${VIDEO_WAIT_MS} ms in the median and the worst.`);
    const skipped = switches.filter((s) => s.skipped).length;
    if (skipped > 0) report.note(`The session ended before ${skipped} of the ${SWITCHES} switches: they count as missed.`);
    report.figures.answerMedianMs = median(answers);
    report.figures.answerWorstMs = answers.length ? Math.max(...answers) : null;
    report.table(
      `${SWITCHES} address switches in one call, from the new address up (the page's clock)`,
      ['switch', 'address', 'video advancing again', 'next answer shown', 'question', 'alert'],
      [
        ...switches.map((s) => [String(s.n), s.skipped ? `— (${s.skipped})` : `${s.from} → ${s.to}`, ms(s.videoMs), ms(s.answerMs), s.question ?? '—', s.alerts.join(' | ') || 'none']),
        ['median', '', ms(median(videos)), ms(median(answers)), '', ''],
        ['worst', '', ms(Math.max(...videos)), answers.length && unanswered === 0 ? ms(Math.max(...answers)) : `${unanswered} not answered`, '', ''],
      ],
    );
    console.log(
      `network switch: video back median ${ms(median(videos))}, worst ${ms(Math.max(...videos))}; next answer median ${ms(median(answers))}, worst ${answers.length ? ms(Math.max(...answers)) : '—'}; ${unanswered} of ${SWITCHES} not answered`,
    );
  } finally {
    await browser?.close();
    await standin?.stop();
    await link.close();
    await output.stop();
    rmSync(config, { recursive: true, force: true });
  }
});
