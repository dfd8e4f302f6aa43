/**
 * Hears the avatar from the page: a WebAudio AnalyserNode on the avatar's
 * <audio> element's MediaStream, sampled every 50 ms, keeping the loudest RMS
 * seen. It reads what the visitor would hear, not the peer connection's
 * statistics, so a stream that arrives but is never attached stays silent.
 */
import type { Page } from '@playwright/test';

interface Meter {
  peak: number;
  samples: number;
  state: string;
  stop(): Promise<void>;
}

declare global {
  interface Window {
    __audioMeter?: Meter;
  }
}

/** Starts (or restarts) the meter on the current avatar audio stream. */
export async function startAudioMeter(page: Page): Promise<void> {
  await page.evaluate(startMeterInPage);
}

/** Runs in the page (exported for the engine lanes' drivers): starts the meter. */
export async function startMeterInPage(): Promise<void> {
  const audio = document.querySelector<HTMLAudioElement>('.avatar-video audio');
  const stream = audio?.srcObject;
  if (!(stream instanceof MediaStream) || stream.getAudioTracks().length === 0) {
    throw new Error('the avatar <audio> has no MediaStream with an audio track');
  }
  const context = new AudioContext();
  await context.resume();
  const analyser = context.createAnalyser();
  analyser.fftSize = 2048;
  context.createMediaStreamSource(stream).connect(analyser);
  const buffer = new Float32Array(analyser.fftSize);
  const meter: Meter = {
    peak: 0,
    samples: 0,
    state: context.state,
    stop: async () => {
      clearInterval(timer);
      await context.close();
    },
  };
  window.__audioMeter = meter;
  const timer = setInterval(() => {
    analyser.getFloatTimeDomainData(buffer);
    let sum = 0;
    for (const v of buffer) sum += v * v;
    meter.peak = Math.max(meter.peak, Math.sqrt(sum / buffer.length));
    meter.samples += 1;
    meter.state = context.state;
  }, 50);
}

/** Runs in the page: stops the meter and closes its AudioContext (a leak check counts contexts). */
export async function stopMeterInPage(): Promise<void> {
  await window.__audioMeter?.stop();
}

/** The loudest RMS (0..1) heard since startAudioMeter. */
export async function audioPeak(page: Page): Promise<number> {
  return page.evaluate(() => window.__audioMeter?.peak ?? 0);
}
