import { startAudioOutput } from '../../support/audioOutput.ts';
import { startStandin } from '../../support/standin.ts';
import type { TestProject } from 'vitest/node';

/**
 * The lanes' shared setup, as Playwright's: an audio output device (PulseAudio with a null
 * sink: Firefox keeps every AudioContext suspended without one) and one stand-in on a
 * free port. Tests read them with inject('standinUrl') / inject('pulseServer').
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const output = await startAudioOutput();
  process.env.PULSE_SERVER = output.server;
  try {
    const standin = await startStandin();
    project.provide('standinUrl', standin.url);
    project.provide('pulseServer', output.server);
    return async () => {
      await standin.stop();
      await output.stop();
    };
  } catch (error) {
    await output.stop();
    throw error;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    standinUrl: string;
    pulseServer: string;
  }
}
