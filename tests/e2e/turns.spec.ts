/**
 * A turn is the visitor's whole question (docs/decisions.md D8), in a real call against the
 * stand-in: a question with a pause inside is one message with one break and no toast; one
 * that stops after "where is the" is still sent within 3 s of its last word; two questions
 * 3 s apart stay two. The fixtures (scripts/make-fixtures.mjs) put the pause between two
 * halves spoken by espeak-ng; each half ends on espeak's own 0.39 s of quiet.
 */
import type { Page } from '@playwright/test';
import { text } from './support/app.ts';
import { clearEvents, events, signalingFrames } from './support/standin.ts';
import { installMicProbe } from './support/micProbe.ts';
import { expect, test } from './support/voiceBrowser.ts';
import { button, goLive, ownMessages, padded, REPLY_MS, reply, startCall, words } from './support/voice.ts';

/** What the stand-in answers the nearest-store question with (server/replies). */
const STORE_ANSWER = 'Our nearest store is the flagship store';
const NOT_RECOGNIZED = text('en', 'error.notRecognized');

declare global {
  interface Window {
    __statuses?: string[];
    __sends?: { at: number; data: string }[];
  }
}

/**
 * Records, from the page's first script: every text a status region (a toast) ever shows,
 * however briefly, and when each signaling frame carrying a message went out.
 */
async function recordPage(page: Page) {
  await page.addInitScript(() => {
    const statuses: string[] = [];
    const sends: { at: number; data: string }[] = [];
    Object.defineProperty(window, '__statuses', { value: statuses });
    Object.defineProperty(window, '__sends', { value: sends });
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data) {
      if (typeof data === 'string' && data.includes('message_text')) sends.push({ at: performance.now(), data });
      return send.call(this, data);
    };
    new MutationObserver(() => {
      for (const el of Array.from(document.querySelectorAll('[role="status"]'))) {
        const t = (el.textContent ?? '').trim();
        if (t !== '' && statuses.at(-1) !== t) statuses.push(t);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

/** Live, the greeting over (the avatar silent), events cleared, then the call: the fixture starts playing. */
async function callAfterGreeting(page: Page) {
  await goLive(page);
  await expect
    .poll(async () => signalingFrames(await events(page.request), 'out').some((f) => f.command === 'nlp_end'), { timeout: 30_000, message: 'the greeting is over' })
    .toBe(true);
  await clearEvents(page.request);
  await startCall(page);
}

/** What the client sent since the events were cleared: its breaks and its nlpmsg texts. */
async function sentSinceCall(page: Page) {
  const frames = signalingFrames(await events(page.request), 'in');
  return {
    breaks: frames.filter((f) => f.type === 'break').length,
    nlpmsg: frames.filter((f) => f.type === 'message_text' && f.source === 'nlpmsg').map((f) => words(String(f.text))),
  };
}

const notRecognizedShown = (page: Page) => page.evaluate((t) => window.__statuses!.some((s) => s.includes(t)), NOT_RECOGNIZED);

test.beforeEach(async ({ page }) => {
  await recordPage(page);
});

const ROWS = [
  { pause: 'no', file: 'q-nearest-store.wav' },
  { pause: '0.5 s', file: 'turn-pause-0.5.wav' },
  { pause: '0.9 s', file: 'turn-pause-0.9.wav' },
  { pause: '1.3 s', file: 'turn-pause-1.3.wav' },
];

for (const row of ROWS) {
  test.describe(`"where is the" … ${row.pause} pause … "nearest store"`, () => {
    test.use({ micFile: padded(row.file, 2) });

    test('is one whole sentence: one message, one break, no "not recognised" toast, and it is answered', async ({ page }) => {
      test.setTimeout(120_000);
      await callAfterGreeting(page);
      // Answered: by then a second sentence, a second break or a toast would have come.
      await expect(reply(page, STORE_ANSWER)).toBeVisible({ timeout: REPLY_MS });
      const sent = await sentSinceCall(page);
      // Both halves in one message. The stand-in's recognizer sometimes drops the "the" that
      // ends the first half before the pause ("where is" … "nearest store", one run of the
      // suite); hearing every word is the speech service's part, joining them the turn's.
      expect(sent.nlpmsg).toEqual([expect.stringMatching(/^where is (the )?nearest store$/)]);
      expect(sent.breaks, 'breaks sent in the call').toBe(1);
      await expect(ownMessages(page)).toHaveCount(1);
      expect(await notRecognizedShown(page), 'a "not recognised" toast was shown').toBe(false);
      await button(page, 'voice.hangUp').click();
    });
  });
}

test.describe('a question that stops after "where is the"', () => {
  // Said 5 s into the call, once its voice detector has joined and heard the call up to now:
  // 2 s in, on a loaded machine, the detector that loads at the call's start joined after the
  // first word and drained what the microphone had heard 2 s late, and the nlpmsg went 3.3 s
  // after the last word. The 3 s here are the turn rule's, in a call under way.
  test.use({ micFile: padded('turn-stop.wav', 5) });

  test('is still sent, within 3 s of its last word', async ({ page }) => {
    test.setTimeout(120_000);
    await installMicProbe(page);
    await callAfterGreeting(page);
    await expect
      .poll(async () => (await sentSinceCall(page)).nlpmsg, { timeout: REPLY_MS, message: 'the question sent' })
      .toEqual([expect.stringMatching(/^where is/)]);
    await expect(ownMessages(page)).toHaveCount(1);
    const { lastWord, sentAt } = await page.evaluate(() => ({
      lastWord: window.__micProbe!.bursts.at(-1)?.end ?? NaN,
      sentAt: window.__sends!.find((s) => s.data.includes('nlpmsg'))?.at ?? NaN,
    }));
    expect(sentAt - lastWord, 'ms from the last word on the microphone to the nlpmsg').toBeLessThanOrEqual(3000);
    expect(await notRecognizedShown(page), 'a "not recognised" toast was shown').toBe(false);
    await button(page, 'voice.hangUp').click();
  });
});

test.describe('two questions 3 s apart', () => {
  test.use({ micFile: padded('turn-two-questions.wav', 2) });

  test('stay two messages, the second spoken as the answer to the first begins', async ({ page }) => {
    test.setTimeout(120_000);
    await callAfterGreeting(page);
    await expect
      .poll(async () => (await sentSinceCall(page)).nlpmsg, { timeout: REPLY_MS, message: 'both questions sent' })
      .toEqual(['where is the nearest store', 'what are your opening hours']);
    await expect(ownMessages(page)).toHaveCount(2);
    expect(await notRecognizedShown(page), 'a "not recognised" toast was shown').toBe(false);
    await button(page, 'voice.hangUp').click();
  });
});
