/**
 * The flows that matter against a back end that speaks the specification literally: a
 * stand-in of its own started with STANDIN_DIALECT=seed (server/README.md, *Dialects*), whose
 * frames carry only the specification's fields and message types (commands on asr and tts
 * frames, no `msg_type: "command"` or `"error"`, no `related_qa`, no `interrupted`). Each
 * flow runs once here; the rest of the suite runs them in the stand-in's own dialect.
 */
import { startStandin, type RunningStandin } from '../support/standin.ts';
import { alertBox, endButton, endChat, expectPreSession, openHome, presetLang, startButton, text, videoAdvances, LIVE_TIMEOUT_MS } from './support/app.ts';
import { clearEvents, events, setFaults, signalingFrames, voiceTurnSteps, type StandinEvent } from './support/standin.ts';
import {
  goLive,
  hold,
  ownMessages,
  padded,
  recognizedPhrases,
  reply,
  replies,
  REPLY_MS,
  startCall,
  toSpeakMode,
  typeQuestion,
  words,
} from './support/voice.ts';
import { expect, test as voiceTest } from './support/voiceBrowser.ts';

const test = voiceTest.extend<object, { seedStandin: RunningStandin }>({
  seedStandin: [
    // Playwright reads a fixture's dependencies from its first parameter's pattern: this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const standin = await startStandin({ env: { STANDIN_DIALECT: 'seed', STANDIN_VIDEO_PROFILE: 'small' } });
      await use(standin);
      await standin.stop();
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  baseURL: async ({ seedStandin }, use) => use(seedStandin.url),
});

/** The specification's received fields and message types (docs/requirements.md R41). */
const SPEC_FIELDS = new Set(['msg_type', 'text', 'msg_id', 'image_url', 'video_url', 'web_url', 'command']);

/** Every frame the stand-in sent kept to the specification's field list. */
function expectSeedFrames(seen: StandinEvent[]): void {
  const out = signalingFrames(seen, 'out').filter((f) => f.msg_type !== undefined);
  expect(out.length).toBeGreaterThan(0);
  for (const frame of out) {
    expect(['asr', 'tts', 'quit'], JSON.stringify(frame)).toContain(frame.msg_type);
    for (const key of Object.keys(frame)) expect(SPEC_FIELDS.has(key), `${key} in ${JSON.stringify(frame)}`).toBe(true);
  }
}

test('seed dialect: live, a typed question answered, the signaling and media reconnects ridden out, and a question answered after them', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  await clearEvents(request);
  await goLive(page);
  await typeQuestion(page, 'what are your opening hours');
  await expect(reply(page, 'We are open every day from ten in the morning')).toBeVisible({ timeout: REPLY_MS });
  // Both drops once the first answer is in (the faults' own 2 s after live raced the typing,
  // and a drop ends the reply under way): a new socket joins the room again, a new WHEP connects.
  expect((await request.post('/__standin/strike', { data: { faults: ['signaling-drop', 'media-drop'] } })).status()).toBe(200);
  await expect.poll(async () => signalingFrames(await events(request), 'in').filter((f) => f.type === 'offer_2').length, { timeout: 30_000 }).toBe(2);
  await expect
    .poll(async () => (await events(request)).filter((e) => e.channel === 'whep' && e.body.state === 'connected').length, { timeout: 30_000 })
    .toBe(2);
  await expect.poll(() => videoAdvances(page), { timeout: LIVE_TIMEOUT_MS }).toBe(true);
  await typeQuestion(page, 'tell me about the discount');
  await expect(reply(page, 'twenty percent off the first order')).toBeVisible({ timeout: REPLY_MS });
  await expect(alertBox(page)).toHaveCount(0);
  // No suggested questions: related_qa is an extension the seed dialect does not send.
  await expect(replies(page).getByRole('button', { name: 'where is the nearest store' })).toHaveCount(0);
  expectSeedFrames(await events(request));
  await endChat(page);
});

test('seed dialect: the server\'s quit shows its prompt and ends the session', async ({ page, request }) => {
  await setFaults(request, 'signaling-quit');
  await presetLang(page, 'en');
  await openHome(page);
  await startButton(page).click();
  // Live, but not the full live check: the quit comes 2 s after the greeting and may
  // already have ended the session by the time frames are counted.
  await expect(endButton(page)).toBeEnabled({ timeout: LIVE_TIMEOUT_MS });
  await expect(alertBox(page)).toBeVisible({ timeout: 30_000 });
  await expect(alertBox(page)).toContainText('The session was ended by the server.');
  await expect(endButton(page)).toHaveCount(0);
  await alertBox(page).getByRole('button', { name: text('en', 'notices.ok') }).click();
  await expectPreSession(page);
  await expect(startButton(page)).toBeEnabled();
  expectSeedFrames(await events(request));
});

test.describe('seed dialect, hold to talk', () => {
  test.use({ micFile: padded('q-nearest-store.wav', 2) });

  test('holding for the question and releasing sends it in the specification\'s order and gets the answer', async ({ page, request }) => {
    test.setTimeout(120_000);
    await goLive(page);
    await toSpeakMode(page);
    await clearEvents(request);
    await hold(page, async () => {
      await expect.poll(async () => recognizedPhrases(await events(request)).map((p) => p.text).join(' '), { timeout: 30_000 }).toMatch(/where is the nearest store/i);
    });
    await expect(ownMessages(page).first()).toContainText(/where is the nearest store/i, { timeout: REPLY_MS });
    await expect(reply(page, 'Our nearest store is the flagship store')).toBeVisible({ timeout: REPLY_MS });
    const seen = await events(request);
    const sentence = signalingFrames(seen, 'in').find((f) => f.source === 'nlpmsg')!;
    // asr_end came on an asr frame, and the client still waited for it before its nlpmsg.
    expect(voiceTurnSteps(seen, (sentence.data as { msg_id: string }).msg_id)).toEqual(['partial', 'asr_end', 'nlpmsg', 'end_point']);
    expectSeedFrames(seen);
  });
});

test.describe('seed dialect, a call', () => {
  // The question starts 1.5 s after the microphone opens (Start call), once, then silence.
  test.use({ micFile: padded('q-nearest-store.wav', 1.5) });

  test('a question spoken over the avatar is heard word for word, interrupts it, is answered, and the cut reply says so', async ({ page, request }) => {
    test.setTimeout(120_000);
    await clearEvents(request);
    // The greeting lasts 25 s, so the call starts over it however long going live takes.
    await setFaults(request, 'greeting-long');
    await goLive(page);
    // The greeting is being spoken (started and not ended) when the call starts.
    await expect
      .poll(
        async () => {
          const out = signalingFrames(await events(request), 'out');
          return out.some((f) => f.command === 'nlp_running') && !out.some((f) => f.command === 'nlp_end');
        },
        { timeout: 30_000, message: 'the greeting is being spoken' },
      )
      .toBe(true);
    await startCall(page);
    await expect(ownMessages(page).first()).toBeVisible({ timeout: REPLY_MS });
    await expect(ownMessages(page).first()).toHaveText(/^\s*(You)?\s*where is the nearest store\??\s*$/i);
    await expect(reply(page, 'Our nearest store is the flagship store')).toBeVisible({ timeout: REPLY_MS });
    const sent = signalingFrames(await events(request), 'in');
    expect(sent.filter((f) => f.type === 'message_text' && f.source === 'nlpmsg').map((f) => words(String(f.text)))).toEqual(['where is the nearest store']);
    expect(sent.map((f) => f.type)).toContain('break');
    // No `interrupted` comes from this server: the client's own break marks the greeting cut short.
    await expect(replies(page).first()).toContainText(text('en', 'error.resultInterrupted'));
    expectSeedFrames(await events(request));
    await page.getByRole('button', { name: 'Hang up', exact: true }).click();
    await endChat(page);
  });
});
