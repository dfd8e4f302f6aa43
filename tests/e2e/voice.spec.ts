/**
 * Voice input against the real stand-in (issue 5): hands-free calls, hold to talk,
 * refusals, mute, and resource leaks. Chromium's fake microphone plays a fixture WAV
 * (scripts/make-fixtures.mjs), so every group of tests that needs its own audio has
 * its own browser launch. The stand-in's speech service recognizes the four contract
 * questions, in English.
 */
import type { Page } from '@playwright/test';
import { alertBox, endButton, text, toast } from './support/app.ts';
import { installCounters } from './support/counters.ts';
import { snap } from './support/screenshots.ts';
import { clearEvents, events, setFaults, signalingFrames, voiceTurnSteps, type StandinEvent } from './support/standin.ts';
import { closedBurstsSince, installMicProbe, pageNow } from './support/micProbe.ts';
import { expect, test } from './support/voiceBrowser.ts';
import { installVoiceCounters, voiceCounts } from './support/voiceCounters.ts';
import {
  button,
  chatLog,
  expectHeardFromFirstWord,
  fixture,
  goLive,
  hold,
  ownMessages,
  padded,
  pageClock,
  recognizedPhrases,
  recordAvatar,
  replies,
  reply,
  REPLY_MS,
  startCall,
  toSpeakMode,
  typeQuestion,
  words,
} from './support/voice.ts';
import { avatarAudioPlayingInPage, emulateAudioInterruptions } from './support/pageShims.ts';
import { installTestMicrophone, testMicrophoneArgs } from '../support/testMicrophone.ts';

const MUTE_FILES = { silence: fixture('silence-3s.wav'), question: fixture('q-nearest-store.wav') };

/**
 * After the speech that must cause nothing has ended on the microphone: the window in which
 * anything it caused would have shown (VAD end of speech < 1 s, then the frame at once).
 */
const MUTED_WINDOW_MS = 3000;
/** After a hold's recognizer closed: a send or a no-voice toast would follow within the 1 s drain. */
const HOLD_WINDOW_MS = 2000;
test.beforeEach(async ({ page }) => {
  await installCounters(page);
  await installVoiceCounters(page);
});

/** Message_text frames the client sent since the events were cleared. */
async function visitorFrames(page: Page) {
  const list = await events(page.request);
  return signalingFrames(list, 'in').filter((f) => f.type === 'message_text');
}

/** Whether the client closed speech connection `connectionId`. */
function speechClosed(list: StandinEvent[], connectionId: string): boolean {
  return list.some((e) => e.channel === 'speech' && e.dir === 'in' && e.body.path === 'connection.closed' && e.body.connectionId === connectionId);
}

const Q1 = /where is the nearest store/i;
const Q2 = /what are your opening hours/i;
const HOURS_ANSWER = 'We are open every day from ten in the morning';

/** The chat log in order: who said it and the text. */
function conversation(page: Page) {
  return chatLog(page)
    .locator('.chat__list > li')
    .evaluateAll((items) => items.map((li) => ({ me: li.classList.contains('msg--me'), text: li.textContent ?? '' })));
}

/**
 * Whether the log holds question 1, a reply, question 2 and a reply with the opening
 * hours, in that order (the call may start anywhere in the looped file, so earlier
 * messages may hold a question cut in half).
 */
function answeredInOrder(log: { me: boolean; text: string }[]): boolean {
  return roundsAnswered(log).length > 0;
}

/** The rounds (index of question 1 in the log) that were answered as answeredInOrder says. */
function roundsAnswered(log: { me: boolean; text: string }[]): number[] {
  const mine = log.flatMap((m, i) => (m.me ? [i] : []));
  return mine.filter((i, k) => {
    const next = mine[k + 1];
    if (next === undefined || !Q1.test(log[i]!.text) || !Q2.test(log[next]!.text)) return false;
    return next > i + 1 && !log[i + 1]!.me && log.slice(next + 1).some((m) => !m.me && m.text.includes(HOURS_ANSWER));
  });
}

/** The texts an interrupted reply shows (with or without words of its own). */
const INTERRUPTED = [text('en', 'error.resultInterrupted'), text('en', 'error.contentInterrupted')];

test.describe('a hands-free call', () => {
  // Looped with 8 s of silence between rounds, so a whole round follows wherever the call starts.
  test.use({ micFile: padded('call-two-questions.wav', 4, true) });

  // The second question starts 2 s after the first ends, while the avatar speaks the first
  // reply: the call's barge-in (docs/requirements.md R60) in a real browser.
  test('two spoken questions become two visitor messages; the second, spoken over the first reply, interrupts it and is answered', async ({
    page,
    request,
  }) => {
    test.setTimeout(240_000);
    await goLive(page);
    await clearEvents(request);
    await startCall(page);
    await expect(button(page, 'voice.muteMicrophone')).toBeVisible();

    // The first reply is cut short by the second question; the second is answered in full.
    // The round must be one in which the avatar had started replying to question 1 before
    // question 2 went up (nlp_ready between them): on a loaded machine the VAD can lag the
    // recognizer past the early-phrase window, or the reply can start late, and that round's
    // question 1 then goes up with no reply under way to interrupt, so the poll waits for
    // the next round of the looped file rather than judging that one.
    let seen: StandinEvent[] = [];
    let sent: Record<string, unknown>[] = [];
    let nlp: Record<string, unknown>[] = [];
    let q1 = -1;
    const at = (frame: Record<string, unknown>) => seen.find((e) => e.body === frame)!.t;
    const replyStartedBetween = (i: number) =>
      seen.some((e) => e.channel === 'signaling' && e.dir === 'out' && e.body.command === 'nlp_ready' && e.t > at(nlp[i]!) && e.t < at(nlp[i + 1]!));
    await expect
      .poll(
        async () => {
          if (!answeredInOrder(await conversation(page))) return 'not yet answered in order';
          seen = await events(request);
          sent = signalingFrames(seen, 'in').filter((f) => f.type === 'message_text');
          nlp = sent.filter((f) => f.source === 'nlpmsg');
          q1 = nlp.findIndex((f, i) => Q1.test(String(f.text)) && Q2.test(String(nlp[i + 1]?.text)) && replyStartedBetween(i));
          // The reply to question 2 started after it and has ended.
          const reply2 = q1 >= 0 && seen.find((e) => e.channel === 'signaling' && e.dir === 'out' && e.body.command === 'nlp_ready' && e.t > at(nlp[q1 + 1]!));
          const answered = reply2 && seen.some((e) => e.channel === 'signaling' && e.body.command === 'nlp_end' && e.body.msg_id === reply2.body.msg_id);
          return answered ? 'answered' : `no round with a reply under way: ${nlp.map((f) => String(f.text)).join(' | ')}`;
        },
        { timeout: 140_000 },
      )
      .toBe('answered');
    await snap(page, 'voice-call-answered-390x844');

    // Each went through the voice turn in the specification's order.
    for (const frame of nlp.slice(q1, q1 + 2)) {
      expect(voiceTurnSteps(seen, (frame.data as { msg_id: string }).msg_id)).toEqual(['partial', 'asr_end', 'nlpmsg', 'end_point']);
    }

    // Barge-in: a break went up between the two questions, and the reply to question 1
    // ended interrupted, as the chat log shows.
    const [q1At, q2At] = [at(nlp[q1]!), at(nlp[q1 + 1]!)];
    const between = seen.filter((e) => e.channel === 'signaling' && e.t > q1At && e.t < q2At);
    const replyId = between.find((e) => e.dir === 'out' && e.body.command === 'nlp_ready')?.body.msg_id;
    expect(replyId, 'the avatar started a reply to question 1').toBeDefined();
    const breakAt = between.find((e) => e.dir === 'in' && e.body.type === 'break')?.t;
    expect(breakAt, 'a break between question 1 and question 2').toBeDefined();
    const endOfReply = seen.find((e) => e.channel === 'signaling' && e.body.command === 'nlp_end' && e.body.msg_id === replyId);
    expect(endOfReply?.body, 'the reply to question 1 ended interrupted').toMatchObject({ interrupted: true });
    expect(endOfReply!.t).toBeGreaterThanOrEqual(breakAt!);
    const log = await conversation(page);
    expect(
      roundsAnswered(log).some((i) => INTERRUPTED.some((words) => log[i + 1]!.text.includes(words))),
      `the reply after question 1 shows that it was interrupted: ${JSON.stringify(log)}`,
    ).toBe(true);

    await button(page, 'voice.hangUp').click();
    await expect(button(page, 'voice.startCall')).toBeVisible();
    await expect.poll(async () => (await voiceCounts(page)).tracksLive).toBe(0);
  });

  test('recognition goes on after the main thread was blocked for a while', async ({ page }) => {
    test.setTimeout(150_000);
    await goLive(page);
    await startCall(page);
    // Past the Speech SDK's first 5 s of audio, after which it paces what it sends: the
    // audio queued during the block then goes out in a burst, through the SDK's timer.
    // (A positive outcome follows, so this wait decides nothing by itself.)
    await page.waitForTimeout(6000);
    await page.evaluate(() => {
      const until = performance.now() + 1500;
      while (performance.now() < until);
    });
    const before = await ownMessages(page).count();
    // The looped file asks a question every few seconds: one of them is sent again.
    await expect(ownMessages(page).nth(before)).toHaveText(new RegExp(`${Q1.source}|${Q2.source}`, 'i'), { timeout: 60_000 });
  });
});

test.describe('the speech service drops during a call', () => {
  test.use({ micFile: padded('call-two-questions.wav', 4, true) });

  /** The client's attempts to reach the speech service: connections opened and refused. */
  const speechAttempts = (list: StandinEvent[]) =>
    list.filter((e) => e.channel === 'speech' && ((e.dir === 'in' && e.body.path === 'connection') || (e.dir === 'out' && e.body.path === 'connection.refused')));

  test('a 3 s drop is ridden out: the recognizer comes back after its back-off, no alert, and the next question is answered', async ({ page, request }) => {
    test.setTimeout(180_000);
    await goLive(page);
    await clearEvents(request);
    await startCall(page);
    // The recognizer's connection is open first: a fault set before it opened would refuse it, not drop it.
    await expect
      .poll(async () => (await events(request)).some((e) => e.channel === 'speech' && e.dir === 'in' && e.body.path === 'connection'), { timeout: 10_000 })
      .toBe(true);
    await clearEvents(request);
    await request.post('/__standin/faults', { data: { faults: ['speech-down'] } });
    // The open connection drops at its next audio message; new ones are refused while the fault holds.
    await expect
      .poll(async () => (await events(request)).some((e) => e.channel === 'speech' && e.body.path === 'connection.dropped'), { timeout: 10_000 })
      .toBe(true);
    // The drop lasts 3 s from there.
    await page.waitForTimeout(3000);
    await request.delete('/__standin/faults');
    // Back on the air: a new connection is accepted, the call goes on, and a question is answered.
    await expect.poll(async () => (await events(request)).filter((e) => e.channel === 'speech' && e.dir === 'in' && e.body.path === 'connection').length, {
      timeout: 20_000,
      message: 'the recognizer reconnected after the drop',
    }).toBeGreaterThanOrEqual(1);
    const before = await ownMessages(page).count();
    await expect(ownMessages(page).nth(before)).toHaveText(new RegExp(`${Q1.source}|${Q2.source}`, 'i'), { timeout: 60_000 });
    await expect(button(page, 'voice.hangUp')).toBeVisible();
    await expect(alertBox(page)).toHaveCount(0);
    // Backed off, not back to back: a restart refused a second or more into the drop (back to
    // back, every restart was refused within a few hundred ms and the call ended). The Speech
    // SDK's own immediate retry of a failed connection comes first and is not the app's.
    const seen = await events(request);
    const droppedAt = seen.find((e) => e.channel === 'speech' && e.body.path === 'connection.dropped')!.t;
    const refused = seen.filter((e) => e.channel === 'speech' && e.body.path === 'connection.refused').map((e) => e.t - droppedAt);
    expect(Math.max(...refused), `refused after ${refused.join(', ')} ms`).toBeGreaterThanOrEqual(800);
  });

  test('a drop that lasts: after the back-off the call ends saying the speech service cannot be reached, not blaming the speech settings', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    await goLive(page);
    await startCall(page);
    await clearEvents(request);
    await request.post('/__standin/faults', { data: { faults: ['speech-down'] } });
    await expect(alertBox(page)).toBeVisible({ timeout: 30_000 });
    await expect(alertBox(page)).toContainText(text('en', 'error.speechUnreachable'));
    await expect(alertBox(page)).not.toContainText(text('en', 'error.asrConfigFailed'));
    // Restarted 1, 2 and 4 s apart: four attempts (the first connection and three restarts) over about 7 s.
    const attempts = speechAttempts(await events(request)).map((e) => e.t);
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts[attempts.length - 1]! - attempts[0]!, 'the restarts spread over the back-off').toBeGreaterThanOrEqual(5000);
    await alertBox(page).getByRole('button', { name: text('en', 'notices.ok') }).click();
    await expect(button(page, 'voice.startCall')).toBeVisible();
    // The session itself goes on: only the call ended.
    await expect(endButton(page)).toBeEnabled();
    await request.delete('/__standin/faults');
  });
});

test.describe("the first seconds of a call", () => {
  // The question starts 1.5 s after the microphone opens (Start call), once, then silence.
  test.use({ micFile: padded('q-nearest-store.wav', 1.5) });
  test.beforeEach(async ({ page }) => {
    await recordAvatar(page);
  });

  // Issue 45: the echo canceller's warm-up lowered the avatar from every Start call tap until
  // it had spoken 3 s, so every call's first answer lost its first 3.6 s to the visitor.
  test('a call started after the greeting: the question is heard, and its answer plays at full voice from its first word', async ({ page, request }) => {
    test.setTimeout(120_000);
    await clearEvents(request);
    await goLive(page);
    await expect
      .poll(async () => signalingFrames(await events(request), 'out').some((f) => f.command === 'nlp_end'), { timeout: 30_000, message: 'the greeting is over' })
      .toBe(true);
    const tappedAt = await pageClock(page);
    await startCall(page);
    await expect(ownMessages(page).first()).toHaveText(/^\s*(You)?\s*where is the nearest store\??\s*$/i, { timeout: REPLY_MS });
    const answer = await expectHeardFromFirstWord(page, tappedAt);
    await expect(reply(page, 'Our nearest store is the flagship store')).toBeVisible({ timeout: REPLY_MS });
    // The reply judged is the answer to the question, not a stray one.
    const answerStart = signalingFrames(await events(request), 'out').find((f) => f.command === 'nlp_ready' && f.msg_id === answer);
    expect(answerStart, 'the answer judged is a reply the stand-in sent').toBeDefined();
  });

  test('hanging up over the lowered greeting gives the avatar its full voice back at once, and a typed question after it is answered at full voice', async ({ page, request }) => {
    test.setTimeout(120_000);
    await clearEvents(request);
    await setFaults(request, 'greeting-long');
    await goLive(page);
    await expect
      .poll(async () => signalingFrames(await events(request), 'out').some((f) => f.command === 'nlp_running'), { timeout: 30_000, message: 'the greeting is being spoken' })
      .toBe(true);
    await startCall(page);
    // Before the question (1.5 s after the microphone opened) and within the warm-up.
    await button(page, 'voice.hangUp').click();
    await expect(button(page, 'voice.startCall')).toBeVisible();
    await expect
      .poll(async () => (await page.evaluate(() => window.__avatarTimeline!)).loudness.at(-1)?.loudness, { message: 'the greeting at full voice again' })
      .toBe(1);
    // At once: straight from the lowered voice (WARMUP_VOLUME, 0.005) to the full one, never
    // through the warm-up's ramp (the steps between them it takes once the greeting has spoken
    // 3 s into a call). How soon after the tap is not timed: a loaded page paints and polls late.
    const marks = (await page.evaluate(() => window.__avatarTimeline!)).loudness;
    expect(marks.filter((m) => m.loudness > 0.005 && m.loudness < 1), `the avatar's loudness: ${JSON.stringify(marks)}`).toEqual([]);
    const askedAt = await pageClock(page);
    await typeQuestion(page, 'what are your opening hours');
    await expectHeardFromFirstWord(page, askedAt);
  });

  test('a question spoken over the avatar\'s greeting is heard word for word, interrupts it and is answered', async ({ page, request }) => {
    test.setTimeout(120_000);
    // The stand-in's events are shared by every test: from here on they are this session's.
    await clearEvents(request);
    // The greeting lasts 25 s, so the call starts over it however long going live takes.
    await setFaults(request, 'greeting-long');
    await goLive(page);
    // The greeting is being spoken (nlp_running) and not over yet when the call starts.
    const greetingId = async () => {
      const seen = await events(request);
      const id = signalingFrames(seen, 'out').find((f) => f.command === 'nlp_ready')?.msg_id;
      const running = signalingFrames(seen, 'out').some((f) => f.command === 'nlp_running' && f.msg_id === id);
      const ended = signalingFrames(seen, 'out').some((f) => f.command === 'nlp_end' && f.msg_id === id);
      return running && !ended ? id : undefined;
    };
    let id: unknown;
    await expect.poll(async () => (id = await greetingId()), { timeout: 30_000, message: 'the greeting is being spoken' }).toBeDefined();
    const tappedAt = await pageClock(page);
    await startCall(page);

    await expect(ownMessages(page).first()).toBeVisible({ timeout: REPLY_MS });
    // Word for word: the service capitalises and punctuates (as Azure does), nothing more.
    await expect(ownMessages(page).first()).toHaveText(/^\s*(You)?\s*where is the nearest store\??\s*$/i);
    await expect(reply(page, 'Our nearest store is the flagship store')).toBeVisible({ timeout: REPLY_MS });
    const seen = await events(request);
    const sent = signalingFrames(seen, 'in');
    expect(sent.filter((f) => f.type === 'message_text' && f.source === 'nlpmsg').map((f) => words(String(f.text)))).toEqual(['where is the nearest store']);
    expect(sent.map((f) => f.type)).toContain('break');
    const greetingEnd = signalingFrames(seen, 'out').find((f) => f.command === 'nlp_end' && f.msg_id === id);
    expect(greetingEnd, 'the greeting was interrupted').toMatchObject({ interrupted: true });
    // The greeting was lowered for the echo canceller; the answer after the interruption is not.
    await expectHeardFromFirstWord(page, tappedAt);
  });
});

test.describe('call controls', () => {
  test.use({ micFile: fixture('call-two-questions.wav') });

  test('while muted, speech produces no message; unmuted, it does again', async ({ page, request }) => {
    test.setTimeout(150_000);
    // The visitor speaks when the test says so (the test microphone, silent until then), so
    // no sentence is under way when the mute lands: what the microphone captures from the
    // moment it opens is the visitor's, and a sentence under way would rightly be sent.
    await page.addInitScript(installTestMicrophone, testMicrophoneArgs(MUTE_FILES, { file: 'silence', loop: true, leadSeconds: 0 }));
    await installMicProbe(page);
    await recordAvatar(page);
    await goLive(page);
    await startCall(page);
    await snap(page, 'voice-call-390x844');
    await button(page, 'voice.muteMicrophone').click();
    await expect(button(page, 'voice.unmuteMicrophone')).toBeVisible();
    const mutedAt = await pageNow(page);
    await snap(page, 'voice-call-muted-390x844');
    const known = await events(request);
    const before = await ownMessages(page).count();

    // The question, twice, reaches the microphone while muted (the probe hears the track
    // itself, not what the app takes from it)...
    for (const heard of [1, 2]) {
      await page.evaluate(() => window.__testMicrophone!.say('question'));
      await expect
        .poll(async () => (await closedBurstsSince(page, mutedAt)).length, { timeout: 30_000, message: `question ${heard} heard by the microphone while muted` })
        .toBeGreaterThanOrEqual(heard);
    }
    // ...and whatever it could have caused is due within a bounded window after it ended:
    // the VAD's end of speech (8 frames, < 1 s), then the sentence's end_point frame at once.
    await page.waitForTimeout(MUTED_WINDOW_MS);
    const newFrames = signalingFrames((await events(request)).slice(known.length), 'in').filter((f) => f.type === 'message_text');
    expect(newFrames).toEqual([]);
    await expect(ownMessages(page)).toHaveCount(before);

    await button(page, 'voice.unmuteMicrophone').click();
    await expect(button(page, 'voice.muteMicrophone')).toBeVisible();
    const unmutedAt = await pageClock(page);
    await page.evaluate(() => window.__testMicrophone!.say('question'));
    await expect(ownMessages(page).nth(before)).toContainText(Q1, { timeout: REPLY_MS });
    // Muting the microphone never touches the avatar: its answer is heard from its first word.
    await expectHeardFromFirstWord(page, unmutedAt);
  });

  // Issue 29: iOS gives the page's audio to a phone call or Siri; asking an interrupted
  // context back freezes it. The call pauses, and goes on when the system gives the audio back.
  test('another app taking the audio (iOS interruption) pauses the call without fighting for it, and the call goes on when the audio is back', async ({ page, request }) => {
    test.setTimeout(180_000);
    await installMicProbe(page);
    await page.addInitScript(emulateAudioInterruptions);
    await recordAvatar(page);
    await goLive(page);
    await startCall(page);
    const shim = () => page.evaluate(() => ({ ...window.__audioInterruptions! }));
    await page.evaluate(() => window.__audioInterruptions!.begin());
    const takenAt = await pageNow(page);
    await expect(page.getByText(text('en', 'voice.state.paused'))).toBeVisible();
    const known = await events(request);
    const knownIds = new Set(signalingFrames(known, 'in').map((f) => (f.data as { msg_id?: string } | undefined)?.msg_id));
    const before = await ownMessages(page).count();
    const answers = replies(page).filter({ hasText: /flagship store|open every day/i });
    const answered = await answers.count();
    // Both questions of the looped file reach the microphone while the audio is taken...
    await expect
      .poll(async () => (await closedBurstsSince(page, takenAt)).length, { timeout: 60_000, message: 'two questions heard by the microphone while the audio was taken' })
      .toBeGreaterThanOrEqual(2);
    await page.waitForTimeout(MUTED_WINDOW_MS);
    // ...and nothing came of them, nothing asked the system for the audio, nothing replayed the avatar.
    const newFrames = signalingFrames((await events(request)).slice(known.length), 'in').filter(
      (f) => f.type === 'message_text' && !knownIds.has((f.data as { msg_id?: string } | undefined)?.msg_id),
    );
    expect(newFrames).toEqual([]);
    await expect(ownMessages(page)).toHaveCount(before);
    expect(await shim()).toMatchObject({ resumesWhileInterrupted: 0, avatarPlaysWhileInterrupted: 0 });
    await expect(button(page, 'voice.hangUp')).toBeVisible();

    // The interruption ends: the context is suspended, asked back, and the call listens again.
    const backAt = await pageClock(page);
    await page.evaluate(() => window.__audioInterruptions!.end());
    await expect.poll(async () => (await shim()).resumes).toBeGreaterThan(0);
    await expect(page.getByText(text('en', 'voice.state.paused'))).toHaveCount(0);
    await expect.poll(() => page.evaluate(avatarAudioPlayingInPage), { message: "the avatar's voice plays again" }).toBe(true);
    await expect(ownMessages(page).nth(before)).toBeVisible({ timeout: REPLY_MS });
    await expect.poll(() => answers.count(), { timeout: REPLY_MS, message: "a question after the interruption is answered" }).toBeGreaterThan(answered);
    expect((await shim()).resumesWhileInterrupted).toBe(0);
    // The first reply after it is heard from its first word, until the looped file's next
    // question talks over it.
    await expectHeardFromFirstWord(page, backAt, { untilBreak: true });
  });

  test('ten calls in a row share one voice detector and leave no AudioContext or microphone track behind', async ({ page }) => {
    // The detector (worker, onnxruntime, model) is loaded once the avatar plays and kept
    // for the session's calls; each call has its own microphone capture and AudioContext.
    test.setTimeout(400_000);
    await goLive(page);
    for (let i = 0; i < 10; i += 1) {
      await startCall(page);
      await button(page, 'voice.hangUp').click();
      await expect(button(page, 'voice.startCall')).toBeVisible();
    }
    await expect
      .poll(() => voiceCounts(page), { timeout: 10_000 })
      .toMatchObject({ workersAlive: 1, contextsOpen: 0, tracksLive: 0 });
    const counts = await voiceCounts(page);
    expect(counts).toMatchObject({ workersCreated: 1, contextsCreated: 10 });
    expect(counts.tracksCreated).toBe(10);
    // The session over, the detector goes too.
    await endButton(page).click();
    await expect.poll(() => voiceCounts(page), { timeout: 10_000 }).toMatchObject({ workersAlive: 0 });
  });
});

test.describe('hold to talk, a question', () => {
  test.use({ micFile: padded('q-nearest-store.wav', 2) });

  test('holding for the question and releasing sends it and gets the answer', async ({ page, request }) => {
    test.setTimeout(120_000);
    await goLive(page);
    await toSpeakMode(page);
    // The session's voice detector, kept for calls, is loading: the only worker.
    await expect.poll(async () => (await voiceCounts(page)).workersCreated, { timeout: 30_000 }).toBe(1);
    await clearEvents(request);
    await hold(page, async () => {
      await expect(page.getByText(text('en', 'voice.releaseToSend'))).toBeVisible();
      await snap(page, 'voice-hold-390x844');
      // The level bars bounce, run by the browser (Web Animations on the compositor, not a
      // timer): each holds one of its four heights, and over a bounce they move.
      const heights = () =>
        page.locator('.voice-status__bars i').evaluateAll((bars) =>
          bars.map((bar) => {
            const running = bar.getAnimations().filter((a) => a.playState === 'running');
            return running.length === 1 ? Number(new DOMMatrix(getComputedStyle(bar).transform).d.toFixed(2)) : null;
          }),
        );
      const seen = [await heights()];
      for (let i = 0; i < 4; i += 1) {
        await page.waitForTimeout(170);
        seen.push(await heights());
      }
      for (const h of seen.flat()) expect([0.3, 0.53, 0.77, 1]).toContain(h);
      // The bounce repeats every 900 ms: five looks 170 ms apart cannot all fall on one step.
      expect(new Set(seen.map(String)).size).toBeGreaterThan(1);
      // Released once the speech service has recognized the question.
      await expect.poll(async () => recognizedPhrases(await events(request)).map((p) => p.text).join(' '), { timeout: 30_000 }).toMatch(Q1);
    });
    await expect(ownMessages(page).first()).toContainText(/where is the nearest store/i, { timeout: REPLY_MS });
    await expect(reply(page, 'Our nearest store is the flagship store')).toBeVisible({ timeout: REPLY_MS });
    const seen = await events(request);
    const inbound = signalingFrames(seen, 'in').map((f) => f.type);
    // The press interrupts the avatar: a break exists, and it went before the message.
    expect(inbound).toContain('break');
    expect(inbound).toContain('message_text');
    expect(inbound.indexOf('break')).toBeLessThan(inbound.indexOf('message_text'));
    // The release sends the sentence as one wording, and the turn goes in the specification's order.
    const sentence = signalingFrames(seen, 'in').find((f) => f.source === 'nlpmsg')!;
    expect(voiceTurnSteps(seen, (sentence.data as { msg_id: string }).msg_id)).toEqual(['partial', 'asr_end', 'nlpmsg', 'end_point']);
    // The finger marks the sentence: the press started no voice-detection worker of its
    // own, and its microphone and AudioContext are closed again.
    await expect
      .poll(() => voiceCounts(page), { timeout: 10_000 })
      .toMatchObject({ workersCreated: 1, contextsCreated: 1, contextsOpen: 0, tracksLive: 0 });
  });

  test('sliding up before releasing cancels: nothing is sent, and no no-voice toast', async ({ page, request }) => {
    test.setTimeout(120_000);
    await goLive(page);
    await toSpeakMode(page);
    await clearEvents(request);
    let connectionId = '';
    await hold(page, async ({ x, y }) => {
      // Held until the speech service has recognized the question: a release now would
      // send it, so a cancel that does not cancel cannot pass for one that does.
      await expect
        .poll(async () => recognizedPhrases(await events(request)).filter((p) => Q1.test(p.text)).length, { timeout: 30_000 })
        .toBeGreaterThan(0);
      connectionId = recognizedPhrases(await events(request)).find((p) => Q1.test(p.text))!.connectionId;
      await page.mouse.move(x, y - 40, { steps: 4 });
      await expect(page.getByText(text('en', 'voice.releaseToCancel'))).toBeVisible();
    });
    // The hold's recognizer is closed (a release that sends closes it too, then sends the
    // words within its 1 s drain): the window opens there.
    await expect.poll(async () => speechClosed(await events(request), connectionId), { timeout: 10_000 }).toBe(true);
    await page.waitForTimeout(HOLD_WINDOW_MS);
    expect(await visitorFrames(page)).toEqual([]);
    await expect(ownMessages(page)).toHaveCount(0);
    await expect(toast(page, text('en', 'error.noVoice'))).toHaveCount(0);
  });
});

test.describe('hold to talk, the speech service unreachable', () => {
  test.use({ micFile: padded('q-nearest-store.wav', 0.5) });

  for (const lang of ['en', 'zh'] as const) {
    test(`(${lang}) a hold whose speech service cannot be reached says so, not that the speech settings failed`, async ({ page, request }) => {
      test.setTimeout(90_000);
      await goLive(page, { lang });
      await button(page, 'voice.switchToVoice', lang).click();
      await expect(button(page, 'voice.holdToTalk', lang)).toBeVisible();
      await setFaults(request, 'speech-down');
      await clearEvents(request);
      await hold(
        page,
        async () => {
          await expect(alertBox(page)).toBeVisible({ timeout: 20_000 });
        },
        lang,
      );
      await expect(alertBox(page).locator('p')).toHaveText(text(lang, 'error.speechUnreachable'));
      await expect(alertBox(page)).not.toContainText(text(lang, 'error.asrConfigFailed'));
      // The recognizer did try the service, and the service refused it.
      expect((await events(request)).some((e) => e.channel === 'speech' && e.body.path === 'connection.refused')).toBe(true);
      await alertBox(page).getByRole('button', { name: text(lang, 'notices.ok') }).click();
      // Only the hold failed: the session goes on.
      await expect(endButton(page, lang)).toBeEnabled();
    });
  }
});

test.describe('hold to talk, silence', () => {
  test.use({ micFile: fixture('silence-3s.wav') });

  test('nothing recognized: the no-voice toast, nothing sent', async ({ page, request }) => {
    test.setTimeout(120_000);
    await goLive(page);
    await toSpeakMode(page);
    await clearEvents(request);
    await hold(page, () => page.waitForTimeout(2000));
    await expect(toast(page, text('en', 'error.noVoice'))).toBeVisible({ timeout: 10_000 });
    expect(await visitorFrames(page)).toEqual([]);
  });
});

test.describe('a refused microphone', () => {
  test.use({ micPrompt: 'deny' });

  test('Start call shows how to allow the microphone, no call starts, and recording shows as blocked', async ({ page }) => {
    test.setTimeout(120_000);
    await goLive(page);
    await button(page, 'voice.startCall').click();
    await expect(alertBox(page)).toContainText(text('en', 'error.micPermissionDisabled'));
    await expect(button(page, 'voice.hangUp')).toHaveCount(0);
    await alertBox(page).getByRole('button').first().click();
    await toSpeakMode(page);
    await expect(button(page, 'voice.holdToTalk')).toHaveAccessibleDescription(text('en', 'voice.micBlocked'));
    expect((await voiceCounts(page)).tracksCreated).toBe(0);
  });
});

test.describe('an account without speech settings', () => {
  for (const lang of ['zh', 'en'] as const) {
    test(`Start call shows the speech-settings alert (${lang}) and stays out of call mode`, async ({ page }) => {
      test.setTimeout(120_000);
      await goLive(page, { id: 'noasr', lang });
      await button(page, 'voice.startCall', lang).click();
      await expect(alertBox(page)).toContainText(lang === 'zh' ? 'asr配置失败' : text('en', 'error.asrConfigFailed'));
      await expect(button(page, 'voice.hangUp', lang)).toHaveCount(0);
      expect((await voiceCounts(page)).tracksCreated).toBe(0);
    });
  }
});
