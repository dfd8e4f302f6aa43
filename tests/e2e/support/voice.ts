/**
 * What the voice tests share (tests/e2e/voice.spec.ts and the other specs that make a call
 * or hold to talk): the fake microphone's fixture files, the chat log's messages, the
 * steps of going live, starting a call and holding to talk, and whether a reply was heard.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { expectLive, openHome, presetLang, startButton, text, type Lang } from './app.ts';
import type { StandinEvent } from './standin.ts';
import { judgeReply, LOUDNESS_POLL_MS, recordAvatarTimeline } from '../../support/avatarLoudness.ts';
import { expect } from './voiceBrowser.ts';

export const REPLY_MS = 45_000;

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const PADDED = fileURLToPath(new URL('../../../test-results/voice-fixtures/', import.meta.url));

// Cheap when the files are there already (it compares hashes). At load time, because
// the padded files are made from them while the describe groups are declared.
execFileSync(process.execPath, [fileURLToPath(new URL('../../../scripts/make-fixtures.mjs', import.meta.url))], { stdio: 'ignore' });

/** A fixture's path; `noloop` plays it once, then silence (Chromium loops it otherwise). */
export function fixture(name: string, noloop = false): string {
  return FIXTURES + name + (noloop ? '%noloop' : '');
}

/**
 * A fixture with `leadSeconds` of silence before it, played once (or looped). The fake
 * microphone starts playing when getUserMedia opens it, a moment before the capture
 * worklet is wired (longer on a loaded machine): the silence keeps the first word whole.
 */
export function padded(name: string, leadSeconds: number, loop = false): string {
  const wav = readFileSync(FIXTURES + name);
  // The fixtures are plain 16 kHz mono 16-bit PCM with a 44-byte header (make-fixtures.mjs).
  const data = Buffer.concat([Buffer.alloc(leadSeconds * 16_000 * 2), wav.subarray(44)]);
  const header = Buffer.from(wav.subarray(0, 44));
  header.writeUInt32LE(36 + data.length, 4);
  header.writeUInt32LE(data.length, 40);
  mkdirSync(PADDED, { recursive: true });
  const path = `${PADDED}lead${leadSeconds}-${name}`;
  writeFileSync(path, Buffer.concat([header, data]));
  return loop ? path : `${path}%noloop`;
}

export const button = (page: Page, id: string, lang: Lang = 'en') => page.getByRole('button', { name: text(lang, id), exact: true });
export const chatLog = (page: Page) => page.getByRole('log', { name: 'Chat log' });
export const ownMessages = (page: Page) => chatLog(page).locator('.msg--me');
export const replies = (page: Page) => chatLog(page).locator('.msg--ai');
export const reply = (page: Page, words: string): Locator => replies(page).filter({ hasText: words });

/** A phrase's words, lower case, without the service's punctuation. */
export const words = (phrase: string): string => phrase.toLowerCase().replace(/[^\p{L}\p{N}\s']/gu, '').replace(/\s+/g, ' ').trim();

/**
 * Opens the account and starts a session: one tap, no second chance. A start that
 * fails fails the test (a retry would hide intermittent start failures).
 */
export async function goLive(page: Page, opts: { id?: string; lang?: Lang } = {}) {
  const lang = opts.lang ?? 'en';
  await presetLang(page, lang);
  await openHome(page, { id: opts.id ?? 'demo', lang });
  await startButton(page, lang).click();
  await expectLive(page, lang);
}

export async function startCall(page: Page) {
  await button(page, 'voice.startCall').click();
  // The first call of a page loads the voice detector's model: slow on a loaded machine.
  await expect(button(page, 'voice.hangUp')).toBeVisible({ timeout: 45_000 });
}

/** Presses Hold to talk with the mouse (pointer events), runs `during`, then releases. */
export async function hold(page: Page, during: (target: { x: number; y: number }) => Promise<void>, lang: Lang = 'en') {
  const target = button(page, 'voice.holdToTalk', lang);
  const box = (await target.boundingBox())!;
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(centre.x, centre.y);
  await page.mouse.down();
  await during(centre);
  await page.mouse.up();
}

export async function toSpeakMode(page: Page) {
  await button(page, 'voice.switchToVoice').click();
  await expect(button(page, 'voice.holdToTalk')).toBeVisible();
}

/** Types `question` into the message box and sends it (keyboard mode, the default). */
export async function typeQuestion(page: Page, question: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(question);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** What the stand-in's speech service told the client it recognized (final phrases), in order. */
export function recognizedPhrases(list: StandinEvent[]): { connectionId: string; text: string }[] {
  return list
    .filter((e) => e.channel === 'speech' && e.dir === 'out' && e.body.path === 'speech.phrase')
    .map((e) => ({ connectionId: String(e.body.connectionId), text: String((e.body.body as { DisplayText?: unknown }).DisplayText ?? '') }))
    .filter((p) => p.text !== '');
}


/** Notes what the visitor hears of the avatar from the page's first script on (tests/support/avatarLoudness.ts). */
export async function recordAvatar(page: Page) {
  await page.addInitScript(recordAvatarTimeline, LOUDNESS_POLL_MS);
}

/** The page's Date.now(), the clock of recordAvatar's timeline. */
export const pageClock = (page: Page): Promise<number> => page.evaluate(() => Date.now());

/** How much of a reply is judged: its first seconds (or all of it, if shorter). */
const HEARD_WINDOW_MS = 3000;
/** What a reply's start may lose under half volume (issue 45: at most 300 ms). */
const START_ALLOWANCE_MS = 300;

/**
 * The first reply that began after `after` (Date.now() in the page) plays at full voice from
 * its first word: under half volume for at most 300 ms of its first second and of its first
 * HEARD_WINDOW_MS. `untilBreak`: judged only until the visitor talked over it (a break went
 * up). Needs recordAvatar before the page loaded; returns the reply's msg_id.
 */
export async function expectHeardFromFirstWord(page: Page, after: number, { untilBreak = false } = {}): Promise<string> {
  let heard: ReturnType<typeof judgeReply> = null;
  await expect
    .poll(
      async () => {
        heard = judgeReply(await page.evaluate(() => window.__avatarTimeline!), after, await pageClock(page), HEARD_WINDOW_MS, { untilBreak });
        return heard ? 'heard' : 'no reply has played its first seconds yet';
      },
      { timeout: REPLY_MS, message: 'a reply begins to speak and plays its first seconds' },
    )
    .toBe('heard');
  const { msgId, firstSecondUnderHalfMs, underHalfMs, heardMs } = heard!;
  expect(firstSecondUnderHalfMs, `ms of the reply's first second under half volume (of ${Math.min(heardMs, 1000)})`).toBeLessThanOrEqual(START_ALLOWANCE_MS);
  expect(underHalfMs, `ms of the reply's first ${heardMs} ms under half volume`).toBeLessThanOrEqual(START_ALLOWANCE_MS);
  return msgId;
}
