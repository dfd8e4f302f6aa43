import type { TestProject } from 'vitest/node';
import { startSharedServices } from '../../support/sharedServices.ts';

/**
 * The lanes' shared setup, as Playwright's: an audio output device (Firefox keeps every
 * AudioContext suspended without one) and one stand-in on a free port. Tests read them
 * with inject('standinUrl') / inject('pulseServer').
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = await startSharedServices();
  project.provide('standinUrl', shared.standinUrl);
  project.provide('pulseServer', shared.pulseServer);
  return shared.stop;
}

declare module 'vitest' {
  export interface ProvidedContext {
    standinUrl: string;
    pulseServer: string;
  }
}
