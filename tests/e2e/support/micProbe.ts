/**
 * Test instrumentation (never shipped): hears what the microphone itself carries, even
 * while the app has muted its track. For every audio track getUserMedia returns, an
 * init script meters a clone of it (a clone keeps its own `enabled`) and records the
 * bursts of sound on it: a burst starts when the level rises above SOUND_RMS and ends
 * after QUIET_MS below it. Stopping the app's track stops the clone and its meter.
 *
 * A test uses it to prove that speech really reached the microphone during a window
 * (for example while muted) before it asserts that nothing came of that speech.
 * The meter's AudioContext is created through the page's AudioContext, so the voice
 * counters (voiceCounters.ts) count it: tests that use the probe assert no context counts.
 */
import type { Page } from '@playwright/test';

export interface Burst {
  /** performance.now() of the page when the sound started and last seen above the level. */
  start: number;
  end: number;
  /** Whether QUIET_MS of quiet have followed it: the burst is over. */
  closed: boolean;
}

interface Probe {
  bursts: Burst[];
}

declare global {
  interface Window {
    __micProbe?: Probe;
  }
}

function instrument(): void {
  const SOUND_RMS = 0.02;
  const QUIET_MS = 500;
  const probe: Probe = { bursts: [] };
  Object.defineProperty(window, '__micProbe', { value: probe, enumerable: false });
  const devices = navigator.mediaDevices;
  const getUserMedia = devices.getUserMedia.bind(devices);

  const watch = (track: MediaStreamTrack) => {
    const clone = track.clone();
    clone.enabled = true;
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 1024;
    context.createMediaStreamSource(new MediaStream([clone])).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    let current: Burst | null = null;
    const timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const v of samples) sum += v * v;
      const now = performance.now();
      if (Math.sqrt(sum / samples.length) > SOUND_RMS) {
        if (!current) {
          current = { start: now, end: now, closed: false };
          probe.bursts.push(current);
        }
        current.end = now;
      } else if (current && now - current.end > QUIET_MS) {
        current.closed = true;
        current = null;
      }
    }, 30);
    const stop = track.stop.bind(track);
    track.stop = () => {
      clearInterval(timer);
      clone.stop();
      void context.close();
      stop();
    };
  };

  devices.getUserMedia = async (constraints?: MediaStreamConstraints) => {
    const stream = await getUserMedia(constraints);
    stream.getAudioTracks().forEach(watch);
    return stream;
  };
}

export async function installMicProbe(page: Page): Promise<void> {
  await page.addInitScript(instrument);
}

/** The page's clock (performance.now()), to compare with burst times. */
export function pageNow(page: Page): Promise<number> {
  return page.evaluate(() => performance.now());
}

/** The bursts of sound the microphone carried that started after `since` and are over. */
export async function closedBurstsSince(page: Page, since: number): Promise<Burst[]> {
  const bursts = await page.evaluate(() => window.__micProbe?.bursts ?? null);
  if (!bursts) throw new Error('installMicProbe() was not called before the page loaded');
  return bursts.filter((b) => b.closed && b.start > since);
}
