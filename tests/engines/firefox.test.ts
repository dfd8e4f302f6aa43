/**
 * The Firefox lane: the real app against the real stand-in in Debian's Firefox ESR,
 * driven over WebDriver BiDi (puppeteer-core), with real WebRTC media and the test
 * microphone playing the fixtures. One browser for the file, a new page per test.
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject, test } from 'vitest';
import { avatarAudioPlayingInPage, emulateWebKitAutoplay, withoutNewerPlatform, withUnreachableStunServer } from '../e2e/support/pageShims.ts';
import {
  clearEvents,
  clearFaults,
  events,
  fetchRequester,
  httpIn,
  httpOut,
  roomIds,
  setFaults,
  signalingFrames,
  startedRooms,
  stopLeftoverRooms,
  stoppedRooms,
  voiceTurnSteps,
} from '../e2e/support/standin.ts';
import { launchFirefox, phonePage } from './support/firefox.ts';
import {
  control,
  conversation,
  endChatLeavesNothing,
  goLive,
  hearAvatar,
  liveCounts,
  openApp,
  waitFor,
  waitForLog,
  waitVideoPlays,
  wakeLockCounts,
} from './support/page.ts';
import { screenshot } from './support/screenshot.ts';
import { saveSessionLog, voiceLines } from './support/sessionLog.ts';
import { LONG_REPLY } from '../support/longReply.ts';

const origin = inject('standinUrl');
const request = fetchRequester(origin);
const Q1 = /where is the nearest store/i;
const Q2 = /what are your opening hours/i;

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchFirefox();
});

afterAll(async () => {
  await browser?.close();
});

/** The rooms on the stand-in when the test began: what it made is what is there beyond these. */
let roomsBefore = new Set<string>();

beforeEach(async () => {
  await clearFaults(request);
  roomsBefore = new Set(await roomIds(request));
  page = await phonePage(browser);
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    const name = `firefox-failed-${context.task.name.slice(0, 40)}`;
    await screenshot(page, name).catch(() => undefined);
    // After the screenshot: the log's pagehide makes the recorder write its last entries.
    const saved = await saveSessionLog(page, name).catch(() => null);
    if (saved) console.log(`the voice in the app's session log (all of it: ${saved.path}):\n${voiceLines(saved.log).join('\n')}`);
  }
  await clearFaults(request);
  const deviceId = await page.evaluate(() => window.localStorage.getItem('login-deviceId')).catch(() => null);
  await page.close().catch(() => undefined);
  await stopLeftoverRooms(request, deviceId);
  // A room this test made and could not stop is this test's failure, not the next one's.
  const made = async () => (await roomIds(request)).filter((id) => !roomsBefore.has(id));
  const deadline = Date.now() + 5_000;
  while ((await made()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const left = await made();
  if (left.length > 0) throw new Error(`this test left rooms on the stand-in that its page could not stop: ${left.join(', ')}`);
});

test('a session: the avatar plays with sound, a typed question is answered, End chat leaves nothing', async () => {
  await openApp(page, origin);
  await screenshot(page, 'firefox-pre-session-390x844');
  await goLive(page);
  // The screen stays on while live (Firefox has Screen Wake Lock since 126).
  await waitFor(() => wakeLockCounts(page), (c) => c.requested === 1 && c.held === 1, 'a screen wake lock held while live');
  expect(await hearAvatar(page)).toBeGreaterThan(0.01);
  await control(page, 'textbox', 'Message').fill('what are your opening hours');
  await page.keyboard.press('Enter');
  await waitForLog(page, (log) => log.some((m) => !m.me && m.text.includes('We are open every day from ten in the morning')), 'the opening hours answered');
  const mine = (await conversation(page)).filter((m) => m.me);
  expect(mine).toHaveLength(1);
  expect(mine[0]!.text).toContain('what are your opening hours');
  await screenshot(page, 'firefox-live-answered-390x844');
  await endChatLeavesNothing(page);
  expect(await wakeLockCounts(page)).toMatchObject({ requested: 1, held: 0, released: 1 });
});

test('a hands-free call: two spoken questions become two visitor messages, each answered', async () => {
  await openApp(page, origin, { mic: { file: 'twoQuestions', loop: true, leadSeconds: 1 } });
  await goLive(page);
  await clearEvents(request);
  await control(page, 'button', 'Start call').click();
  await control(page, 'button', 'Hang up').setTimeout(45_000).wait();
  // Both questions of one round, in order, each sent as a visitor message (the looped file
  // may start the call mid-round, so an earlier message may hold half a question).
  await waitForLog(
    page,
    (log) => {
      const mine = log.filter((m) => m.me).map((m) => m.text);
      return mine.some((text, i) => Q1.test(text) && Q2.test(mine[i + 1] ?? ''));
    },
    'question 1 then question 2 sent from the call',
    120_000,
  );
  await waitForLog(page, (log) => log.some((m) => !m.me && m.text.includes('We are open every day from ten in the morning')), 'question 2 answered');
  // Each went up through the voice turn in the specification's order.
  const seen = await events(request);
  const spoken = signalingFrames(seen, 'in').filter((f) => f.source === 'nlpmsg' && (Q1.test(String(f.text)) || Q2.test(String(f.text))));
  expect(spoken.length).toBeGreaterThanOrEqual(2);
  for (const frame of spoken) {
    expect(voiceTurnSteps(seen, (frame.data as { msg_id: string }).msg_id), `the turn of "${String(frame.text)}"`).toEqual(['partial', 'asr_end', 'nlpmsg', 'end_point']);
  }
  await screenshot(page, 'firefox-call-390x844');
  await control(page, 'button', 'Hang up').click();
  await control(page, 'button', 'Start call').wait();
  await endChatLeavesNothing(page);
});

test('hold to talk: the question held for is sent on release and answered', async () => {
  await openApp(page, origin, { mic: { file: 'nearestStore', loop: false, leadSeconds: 1 } });
  await goLive(page);
  await control(page, 'button', 'Switch to voice').click();
  const target = await control(page, 'button', 'Hold to talk').waitHandle();
  const box = (await target.boundingBox())!;
  await clearEvents(request);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // Released once the speech service has recognized the question.
  await waitFor(
    async () => (await events(request)).filter((e) => e.channel === 'speech' && e.dir === 'out' && e.body.path === 'speech.phrase').map((e) => JSON.stringify(e.body.body)),
    (phrases) => phrases.some((p) => Q1.test(p)),
    'the held question recognized',
    30_000,
  );
  await page.mouse.up();
  await waitForLog(page, (log) => log.some((m) => m.me && Q1.test(m.text)), 'the held question sent');
  await waitForLog(page, (log) => log.some((m) => !m.me && m.text.includes('Our nearest store is the flagship store')), 'the held question answered');
  await endChatLeavesNothing(page);
});

test('media-drop: a new WHEP connection replaces the dropped one and the avatar plays on', async () => {
  await setFaults(request, 'media-drop');
  await openApp(page, origin);
  await clearEvents(request);
  await goLive(page);
  await waitFor(
    async () => (await events(request)).filter((e) => e.channel === 'whep' && e.body.state === 'connected').length,
    (n) => n === 2,
    'a second WHEP connection connected',
    30_000,
  );
  await waitFor(() => liveCounts(page), (c) => c.pcCreated === 2 && c.pcOpen === 1 && c.socketsOpen === 1, 'one peer connection replaced by another');
  await waitVideoPlays(page);
  expect(await page.$$('[role="alert"]')).toHaveLength(0);
  await endChatLeavesNothing(page);
});

test("a question spoken over a long reply, with the avatar's echo at −25 dB in the microphone, interrupts it and arrives word for word", async () => {
  // The stand-in's events are shared by every test: from here on they are this session's.
  await clearEvents(request);
  await openApp(page, origin, { mic: { file: 'nearestStore', loop: false, leadSeconds: 6, echo: { gainDb: -25, delayMs: 80 } } });
  await goLive(page);
  // The greeting over, then the call, then a reply of about 25 s with the question 6 s into the call.
  await waitFor(async () => signalingFrames(await events(request), 'out').some((f) => f.command === 'nlp_end'), (ended) => ended, 'the greeting over', 30_000);
  await control(page, 'button', 'Start call').click();
  await control(page, 'button', 'Hang up').setTimeout(45_000).wait();
  await clearEvents(request);
  const said = await fetch(`${origin}/__standin/say`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: LONG_REPLY }),
  });
  expect(said.status).toBe(200);
  const texts = await waitFor(
    async () => signalingFrames(await events(request), 'in').filter((f) => f.type === 'message_text' && f.source === 'nlpmsg').map((f) => String(f.text)),
    (sent) => sent.length > 0,
    'the question sent',
    60_000,
  );
  expect(texts).toEqual([expect.stringMatching(/^where is the nearest store\??$/i)]);
  const seen = await events(request);
  expect(signalingFrames(seen, 'in').map((f) => f.type)).toContain('break');
  // The greeting was over before the events were cleared: the first reply since is the one asked for.
  const replyId = signalingFrames(seen, 'out').find((f) => f.command === 'nlp_ready')?.msg_id;
  expect(signalingFrames(seen, 'out').find((f) => f.command === 'nlp_end' && f.msg_id === replyId)).toMatchObject({ interrupted: true });
  await control(page, 'button', 'Hang up').click();
  await endChatLeavesNothing(page);
});

// The robustness defects of issue 19, in Firefox: each as the Chromium suite tests it
// (tests/e2e/autoplay.spec.ts, robustness.spec.ts, voice.spec.ts), with the same page shims.

const alertText = (p: Page) => p.evaluate(() => document.querySelector('[role="alert"]')?.textContent ?? null);
const alertShows = (p: Page, words: string, timeout = 30_000) => waitFor(() => alertText(p), (t) => t?.includes(words) ?? false, `an alert saying "${words}"`, timeout);

test("WebKit's autoplay rule: the Start chat tap unlocks the avatar's sound, which plays seconds later without asking", async () => {
  await page.evaluateOnNewDocument(emulateWebKitAutoplay);
  await openApp(page, origin);
  await goLive(page);
  await waitFor(() => page.evaluate(avatarAudioPlayingInPage), (playing) => playing, 'the avatar audio element playing its stream');
  const seen = await page.evaluate(() => window.__webkitAutoplay!);
  expect(seen.allowedInGesture, 'a play() ran inside the Start chat tap').toBeGreaterThan(0);
  expect(seen.refused, 'no play() with sound was refused').toBe(0);
  expect(await alertText(page)).toBeNull();
  await endChatLeavesNothing(page);
});

/** Start chat pressed by script, not by the visitor: no user gesture, so nothing is unlocked. */
const startWithoutGesture = () =>
  page.evaluate(() => Array.from(document.querySelectorAll('button')).find((b) => b.textContent?.trim() === 'Start chat')?.click());

test("WebKit's autoplay rule, a start without a gesture: an alert says the sound is held back, and Tap to play plays", async () => {
  await page.evaluateOnNewDocument(emulateWebKitAutoplay);
  await openApp(page, origin);
  await startWithoutGesture();
  await alertShows(page, "The browser is holding back the avatar's sound");
  expect(await page.evaluate(() => window.__webkitAutoplay!.refused)).toBeGreaterThan(0);
  await clickInAlert('Tap to play');
  await control(page, 'button', 'End chat').setTimeout(45_000).wait();
  await waitVideoPlays(page);
  await waitFor(() => page.evaluate(avatarAudioPlayingInPage), (playing) => playing, 'the avatar audio element playing its stream');
  expect(await alertText(page)).toBeNull();
  await endChatLeavesNothing(page);
});

test("WebKit's autoplay rule, a start without a gesture: OK ends the session and stops its room", async () => {
  await page.evaluateOnNewDocument(emulateWebKitAutoplay);
  await openApp(page, origin);
  await clearEvents(request);
  await startWithoutGesture();
  await alertShows(page, "The browser is holding back the avatar's sound");
  await clickInAlert('OK');
  await control(page, 'button', 'Start chat').wait();
  expect(await alertText(page)).toBeNull();
  const started = startedRooms(await events(request));
  expect(started).toHaveLength(1);
  await waitFor(async () => stoppedRooms(await events(request)), (stopped) => stopped.length === 1 && stopped[0] === started[0], 'the room stopped');
});

test('an unreachable STUN server among the ICE servers: its candidate errors are only logged, and the session goes live', async () => {
  await page.evaluateOnNewDocument(withUnreachableStunServer);
  await openApp(page, origin);
  await goLive(page);
  // Firefox reports the unresolvable server as icecandidateerror (code 701) while it gathers,
  // which is before the offer goes out: by the time the session is live the app has seen
  // every one of them. Without one the test would prove nothing, so it checks there was one.
  expect(await page.evaluate(() => window.__iceCandidateErrors?.count ?? 0), 'Firefox reported no candidate error').toBeGreaterThan(0);
  expect(await alertText(page)).toBeNull();
  await endChatLeavesNothing(page);
});

test('Cancel while start_live is in flight: back at once, and the room made meanwhile is stopped once its answer comes', async () => {
  await setFaults(request, 'start-live-late');
  await openApp(page, origin);
  await clearEvents(request);
  const before = new Set(await roomIds(request));
  const newRooms = async () => (await roomIds(request)).filter((id) => !before.has(id));
  await control(page, 'button', 'Start chat').click();
  const tapped = Date.now();
  // The room exists on the server from the request on (the streams list names it); its answer waits for the fault to be cleared.
  const made = await waitFor(newRooms, (rooms) => rooms.length === 1, 'the room made on the server');
  // A deliberate Cancel (a tap within 300 ms of Start is the second tap of a double tap).
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 400 - (Date.now() - tapped))));
  await control(page, 'button', 'Cancel').click();
  // The answer is held until the fault is cleared (20 s at most): back before it means the ending did not wait for it.
  await control(page, 'button', 'Start chat').setTimeout(10_000).wait();
  expect(httpOut(await events(request), '/start_live'), 'back while start_live was still unanswered').toEqual([]);
  await clearFaults(request);
  await waitFor(newRooms, (left) => left.length === 0, 'the room stopped once start_live answered');
  expect(httpIn(await events(request), '/stop_live').map((e) => (e.body.body as { room_id?: string }).room_id)).toEqual(made);
});

test('a user service that fails once is retried unseen; one that cannot be reached shows Retry, keeps the stored account, and Retry loads it', async () => {
  await setFaults(request, 'userinfo-flaky');
  await clearEvents(request);
  await openApp(page, origin);
  expect(httpIn(await events(request), '/ue/userinfo')).toHaveLength(2);
  const stored = await page.evaluate(() => window.localStorage.getItem('userInfo'));
  expect(stored).not.toBeNull();

  await setFaults(request, 'userinfo-error');
  await clearEvents(request);
  await page.reload();
  await alertShows(page, 'The service cannot be reached right now', 15_000);
  expect(httpIn(await events(request), '/ue/userinfo')).toHaveLength(3);
  expect(await page.evaluate(() => window.localStorage.getItem('userInfo'))).toBe(stored);
  await clearFaults(request);
  await control(page, 'button', 'Retry').click();
  await control(page, 'button', 'Start chat').wait();
  expect(await alertText(page)).toBeNull();
});

test('a browser without crypto.randomUUID, AbortSignal.throwIfAborted and Array.prototype.at boots, chats and starts a call', async () => {
  await page.evaluateOnNewDocument(withoutNewerPlatform);
  await openApp(page, origin);
  // The page really lacks all three, or the test proves nothing about their fallbacks.
  expect(await page.evaluate(() => [typeof crypto.randomUUID, typeof AbortSignal.prototype.throwIfAborted, typeof [].at])).toEqual(['undefined', 'undefined', 'undefined']);
  expect(await page.evaluate(() => window.localStorage.getItem('login-deviceId'))).toMatch(/^H5[0-9a-f]{32}$/);
  await goLive(page);
  await control(page, 'textbox', 'Message').fill('what are your opening hours');
  await page.keyboard.press('Enter');
  await waitForLog(page, (log) => log.some((m) => !m.me && m.text.includes('We are open every day from ten in the morning')), 'the opening hours answered');
  await control(page, 'button', 'Start call').click();
  await control(page, 'button', 'Hang up').setTimeout(45_000).wait();
  await control(page, 'button', 'Hang up').click();
  await control(page, 'button', 'Start call').wait();
  expect(await alertText(page)).toBeNull();
  await endChatLeavesNothing(page);
});

test('a 3 s speech service drop in a call is ridden out: restarts back off, no alert, and the next question is answered', async () => {
  await openApp(page, origin, { mic: { file: 'twoQuestions', loop: true, leadSeconds: 1 } });
  await goLive(page);
  await control(page, 'button', 'Start call').click();
  await control(page, 'button', 'Hang up').setTimeout(45_000).wait();
  await clearEvents(request);
  await setFaults(request, 'speech-down');
  await waitFor(async () => (await events(request)).some((e) => e.channel === 'speech' && e.body.path === 'connection.dropped'), (dropped) => dropped, 'the speech connection dropped', 10_000);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await clearFaults(request);
  const before = (await conversation(page)).filter((m) => m.me).length;
  await waitForLog(page, (log) => log.filter((m) => m.me).length > before, 'a question sent after the drop', 60_000);
  expect(await alertText(page)).toBeNull();
  // Backed off: a restart refused a second or more into the drop (the SDK's own immediate retry is not the app's).
  const seen = await events(request);
  const droppedAt = seen.find((e) => e.channel === 'speech' && e.body.path === 'connection.dropped')!.t;
  const refused = seen.filter((e) => e.channel === 'speech' && e.body.path === 'connection.refused').map((e) => e.t - droppedAt);
  expect(Math.max(...refused), `refused after ${refused.join(', ')} ms`).toBeGreaterThanOrEqual(800);
  await control(page, 'button', 'Hang up').click();
  await endChatLeavesNothing(page);
});

/** Clicks the alert's own button (the live screen under it has a Tap to play of its own), as a visitor's tap. */
async function clickInAlert(name: string): Promise<void> {
  for (const handle of await page.$$('[role="alert"] button')) {
    if ((await handle.evaluate((b) => b.textContent?.trim())) === name) {
      await handle.click();
      return;
    }
  }
  throw new Error(`no button "${name}" in the alert`);
}
