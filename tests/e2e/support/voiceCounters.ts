/**
 * Test instrumentation (never shipped): an init script that wraps `Worker`,
 * `AudioContext` and `getUserMedia` so a test can count what the page created
 * and what is still alive — a worker until terminate(), an AudioContext until
 * its state is 'closed', a microphone track until its readyState is 'ended'.
 * Instances are held strongly, so one the app forgot still counts.
 */
import type { Page } from '@playwright/test';

export interface VoiceCounts {
  workersCreated: number;
  workersAlive: number;
  contextsCreated: number;
  contextsOpen: number;
  tracksCreated: number;
  tracksLive: number;
}

interface VoiceRegistry {
  workers: { terminated: boolean }[];
  contexts: AudioContext[];
  tracks: MediaStreamTrack[];
}

declare global {
  interface Window {
    __voiceCounters?: VoiceRegistry;
  }
}

/** Runs in the page before any of its scripts (exported for the engine lanes' drivers). */
export function instrumentVoice(): void {
  const registry: VoiceRegistry = { workers: [], contexts: [], tracks: [] };
  Object.defineProperty(window, '__voiceCounters', { value: registry, enumerable: false });

  const NativeWorker = window.Worker;
  class CountedWorker extends NativeWorker {
    private readonly entry = { terminated: false };
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      registry.workers.push(this.entry);
    }
    override terminate(): void {
      this.entry.terminated = true;
      super.terminate();
    }
  }
  window.Worker = CountedWorker;

  const NativeContext = window.AudioContext;
  class CountedContext extends NativeContext {
    constructor(options?: AudioContextOptions) {
      super(options);
      registry.contexts.push(this);
    }
  }
  window.AudioContext = CountedContext;

  const devices = navigator.mediaDevices;
  const getUserMedia = devices.getUserMedia.bind(devices);
  devices.getUserMedia = async (constraints?: MediaStreamConstraints) => {
    const stream = await getUserMedia(constraints);
    registry.tracks.push(...stream.getTracks());
    return stream;
  };
}

export async function installVoiceCounters(page: Page): Promise<void> {
  await page.addInitScript(instrumentVoice);
}

export async function voiceCounts(page: Page): Promise<VoiceCounts> {
  return page.evaluate(readVoiceCounts);
}

/** Runs in the page: the counts so far. */
export function readVoiceCounts(): VoiceCounts {
  const registry = window.__voiceCounters;
  if (!registry) throw new Error('installVoiceCounters() was not called before the page loaded');
  return {
    workersCreated: registry.workers.length,
    workersAlive: registry.workers.filter((w) => !w.terminated).length,
    contextsCreated: registry.contexts.length,
    contextsOpen: registry.contexts.filter((c) => c.state !== 'closed').length,
    tracksCreated: registry.tracks.length,
    tracksLive: registry.tracks.filter((t) => t.readyState === 'live').length,
  };
}
