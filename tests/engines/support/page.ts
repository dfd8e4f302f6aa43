/**
 * What the engine lanes do with a puppeteer page: open the app with the suite's
 * instrumentation and test microphone, find controls by role and accessible name (as a
 * visitor's screen reader would), and wait for what the visitor would see. The
 * instrumentation is the Chromium suite's own (tests/e2e/support), run in this engine.
 */
import type { ElementHandle, Page } from 'puppeteer-core';
import { fileURLToPath } from 'node:url';
import { startMeterInPage, stopMeterInPage } from '../../e2e/support/audio.ts';
import { instrumentCounters, readLiveCounts, type LiveCounts } from '../../e2e/support/counters.ts';
import { instrumentVoice, readVoiceCounts, type VoiceCounts } from '../../e2e/support/voiceCounters.ts';
import { instrumentWakeLock, readWakeLockCounts, type WakeLockCounts } from '../../e2e/support/wakeLock.ts';
import { installTestMicrophone, testMicrophoneArgs, type Playing } from '../../support/testMicrophone.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** The fixtures the lanes' test microphone can play. */
export const MIC_FILES = {
  twoQuestions: FIXTURES + 'call-two-questions.wav',
  nearestStore: FIXTURES + 'q-nearest-store.wav',
  silence: FIXTURES + 'silence-3s.wav',
};

export type MicFile = keyof typeof MIC_FILES;

/**
 * A control by role and accessible name (exact): the element's aria-label, the text of
 * its aria-labelledby, or its text. (Puppeteer's ARIA selectors poll Firefox's
 * accessibility tree, which stalled the page's own scripts for seconds at a time here;
 * this finder runs in the page instead.)
 */
export function control(page: Page, role: string, name: string) {
  return new Control(page, role, name);
}

/** Runs in the page: the visible element with that role and accessible name, if any. */
export function findControl(role: string, name: string): Element | null {
  const implicit: Record<string, string> = { button: 'button', textbox: 'textarea, input:not([type]), input[type="text"]', link: 'a[href]' };
  const candidates = document.querySelectorAll(`[role="${role}"]${implicit[role] ? `, ${implicit[role]}` : ''}`);
  const nameOf = (element: Element): string => {
    const label = element.getAttribute('aria-label');
    if (label !== null) return label.trim();
    const labelledBy = element.getAttribute('aria-labelledby');
    if (labelledBy) return labelledBy.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
    return (element.textContent ?? '').replace(/\s+/g, ' ').trim();
  };
  for (const element of Array.from(candidates)) {
    const explicit = element.getAttribute('role');
    if (explicit !== null && explicit !== role) continue;
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.height > 0 && nameOf(element) === name) return element;
  }
  return null;
}

/** Runs in the page: findControl's element if it is enabled. */
function findEnabledControl(role: string, name: string, find: string): Element | null {
  // findControl comes as source: a function argument cannot cross into the page.
  const element = (new Function(`return (${find})`)() as typeof findControl)(role, name);
  return element && !(element as HTMLButtonElement).disabled && element.getAttribute('aria-disabled') !== 'true' ? element : null;
}

class Control {
  private timeout = 15_000;
  constructor(
    private readonly page: Page,
    private readonly role: string,
    private readonly name: string,
  ) {}

  setTimeout(ms: number): this {
    this.timeout = ms;
    return this;
  }

  /** Waits until it is shown and enabled, and returns it. */
  async waitHandle() {
    const deadline = Date.now() + this.timeout;
    try {
      // Polled from here, not in the page (waitForFunction's in-page polling missed
      // changes in Firefox over BiDi).
      for (;;) {
        const handle = await this.page.evaluateHandle(findEnabledControl, this.role, this.name, findControl.toString());
        const element = handle.asElement();
        if (element) return element as ElementHandle<Element>;
        await handle.dispose();
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } catch (error) {
      const shown = await this.page
        .evaluate(
          (role: string) =>
            Array.from(document.querySelectorAll(`[role="${role}"], ${role === 'button' ? 'button' : role === 'textbox' ? 'textarea, input' : '*[data-none]'}`)).map(
              (e) => `${e.getAttribute('aria-label') ?? e.textContent?.trim()}${(e as HTMLButtonElement).disabled ? ' (disabled)' : ''}`,
            ),
          this.role,
        )
        .catch(() => []);
      throw new Error(`no enabled ${this.role} "${this.name}" within ${this.timeout / 1000} s; shown: ${JSON.stringify(shown)}`, { cause: error });
    }
  }

  async wait(): Promise<void> {
    await (await this.waitHandle()).dispose();
  }

  async click(): Promise<void> {
    const handle = await this.waitHandle();
    await handle.click();
    await handle.dispose();
  }

  async fill(value: string): Promise<void> {
    const handle = await this.waitHandle();
    await handle.click();
    await handle.type(value);
    await handle.dispose();
  }
}

/**
 * Opens /25d/{id} in English with the counters and the test microphone installed
 * before the app's scripts (the microphone first: the counters wrap AudioContext).
 */
export async function openApp(page: Page, origin: string, options: { id?: string; mic?: Playing & { file: MicFile } } = {}): Promise<void> {
  const play = options.mic ?? { file: 'twoQuestions', loop: true, leadSeconds: 0 };
  await page.evaluateOnNewDocument(installTestMicrophone, testMicrophoneArgs(MIC_FILES, play));
  await page.evaluateOnNewDocument(instrumentCounters);
  await page.evaluateOnNewDocument(instrumentVoice);
  await page.evaluateOnNewDocument(instrumentWakeLock);
  await page.evaluateOnNewDocument(() => window.localStorage.setItem('lang', 'en'));
  await page.goto(`${origin}/25d/${options.id ?? 'demo'}`);
  await control(page, 'button', 'Start chat').wait();
}

/** Start chat, then waits for the live session: End chat enabled and the avatar video playing. */
export async function goLive(page: Page): Promise<void> {
  await control(page, 'button', 'Start chat').click();
  await control(page, 'button', 'End chat').setTimeout(45_000).wait();
  await waitVideoPlays(page);
}

/**
 * Runs in the page: whether the avatar video is playing: not paused, its clock moving,
 * and video frames being decoded on the open peer connection (headless Firefox paints
 * none, so getVideoPlaybackQuality() stays at 0 there; the counters hold the connections).
 */
async function videoPlays(): Promise<boolean> {
  const video = document.querySelector<HTMLVideoElement>('.avatar-video video');
  if (!video || video.paused) return false;
  const pc = window.__counters?.pcs.find((p) => p.signalingState !== 'closed');
  if (!pc) return false;
  const decoded = async () => {
    let frames = 0;
    (await pc.getStats()).forEach((s: { type: string; kind?: string; framesDecoded?: number }) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') frames += s.framesDecoded ?? 0;
    });
    return frames;
  };
  const before = video.currentTime;
  const frames = await decoded();
  await new Promise((resolve) => setTimeout(resolve, 500));
  return video.currentTime > before && (await decoded()) > frames;
}

/** Waits for the avatar video to play again (after a reconnect). */
export async function waitVideoPlays(page: Page, timeout = 30_000): Promise<void> {
  await waitFor(() => page.evaluate(videoPlays), (plays) => plays, 'the avatar video playing', timeout);
}

/** Meters the avatar's audio stream in the page and waits for speech-level sound (RMS > 0.01). */
export async function hearAvatar(page: Page, timeout = 30_000): Promise<number> {
  await page.evaluate(startMeterInPage);
  try {
    return await waitFor(() => page.evaluate(() => window.__audioMeter?.peak ?? 0), (peak) => peak > 0.01, 'speech-level sound from the avatar', timeout);
  } finally {
    await page.evaluate(stopMeterInPage);
  }
}

/** The chat log's messages in order: who said it and the text. */
export async function conversation(page: Page): Promise<{ me: boolean; text: string }[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('[role="log"] .chat__list > li')).map((li) => ({ me: li.classList.contains('msg--me'), text: li.textContent ?? '' })),
  );
}

/** Waits until the chat log satisfies `check`; the error shows the log as it was. */
export async function waitForLog(page: Page, check: (log: { me: boolean; text: string }[]) => boolean, what: string, timeout = 45_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let log: { me: boolean; text: string }[] = [];
  while (Date.now() < deadline) {
    log = await conversation(page);
    if (check(log)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} within ${timeout / 1000} s; the chat log: ${JSON.stringify(log)}`);
}

/** Polls `read` until `check` holds; the error shows the last value. */
export async function waitFor<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeout = 15_000): Promise<T> {
  const deadline = Date.now() + timeout;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeout / 1000} s; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    value = await read();
  }
  return value;
}

export const liveCounts = (page: Page): Promise<LiveCounts> => page.evaluate(readLiveCounts);
export const voiceCounts = (page: Page): Promise<VoiceCounts> => page.evaluate(readVoiceCounts);
export const wakeLockCounts = (page: Page): Promise<WakeLockCounts> => page.evaluate(readWakeLockCounts);

/** End chat, back to the start screen, and nothing of the session left open in the page. */
export async function endChatLeavesNothing(page: Page): Promise<void> {
  await control(page, 'button', 'End chat').click();
  await control(page, 'button', 'Start chat').wait();
  await waitFor(
    async () => ({ ...(await liveCounts(page)), ...(await voiceCounts(page)) }),
    (c) => c.pcOpen === 0 && c.socketsOpen === 0 && c.workersAlive === 0 && c.contextsOpen === 0 && c.tracksLive === 0,
    'no peer connection, socket, worker, AudioContext or live microphone track left after End chat',
  );
}
