/**
 * Test instrumentation (never shipped): an init script that records, on the machine's clock
 * (Date.now(), comparable with the test's own), every frame the avatar <video> presents (requestVideoFrameCallback)
 * and every moment the reconnect hint (role status, the `.reconnecting` live region's child)
 * appears or goes. A test reads them afterwards, so a hint that showed for half a second is
 * seen even if no poll of the page fell inside it.
 */
import type { Page } from '@playwright/test';

export interface ReconnectTimeline {
  /** When each avatar frame was presented. */
  frames: number[];
  /** When the hint appeared (shown) or went (gone), with its text when it appeared. */
  hint: { at: number; shown: boolean; text: string }[];
}

declare global {
  interface Window {
    __reconnectTimeline?: ReconnectTimeline;
  }
}

export function instrumentReconnectTimeline(): void {
  const timeline: ReconnectTimeline = { frames: [], hint: [] };
  Object.defineProperty(window, '__reconnectTimeline', { value: timeline, enumerable: false });
  const watched = new WeakSet<HTMLVideoElement>();
  const follow = (video: HTMLVideoElement) => {
    if (watched.has(video)) return;
    watched.add(video);
    const onFrame = () => {
      timeline.frames.push(Date.now());
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  };
  let shown = false;
  const look = () => {
    const video = document.querySelector<HTMLVideoElement>('.avatar-video video');
    if (video) follow(video);
    const hint = document.querySelector('.reconnecting [role="status"]');
    if (Boolean(hint) !== shown) {
      shown = Boolean(hint);
      timeline.hint.push({ at: Date.now(), shown, text: hint?.textContent ?? '' });
    }
  };
  new MutationObserver(look).observe(document, { childList: true, subtree: true });
}

export async function installReconnectTimeline(page: Page): Promise<void> {
  await page.addInitScript(instrumentReconnectTimeline);
}

export async function reconnectTimeline(page: Page): Promise<ReconnectTimeline> {
  return page.evaluate(() => window.__reconnectTimeline ?? { frames: [], hint: [] });
}

/** The longest pause between two presented frames after `from`: when the video froze and when it moved again. */
export function longestStall(frames: number[], from = 0): { froze: number; moved: number } | null {
  let best: { froze: number; moved: number } | null = null;
  for (let i = 1; i < frames.length; i++) {
    const [a, b] = [frames[i - 1]!, frames[i]!];
    if (a < from) continue;
    if (!best || b - a > best.moved - best.froze) best = { froze: a, moved: b };
  }
  return best;
}
