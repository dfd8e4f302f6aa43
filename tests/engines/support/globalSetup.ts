import type { TestProject } from 'vitest/node';
import { startSharedServices } from '../../support/sharedServices.ts';

/**
 * The lanes' shared setup, as Playwright's: an audio output device (Firefox keeps every
 * AudioContext suspended without one) and one stand-in on a free port. Tests read them
 * with inject('standinUrl') / inject('pulseServer').
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Debian's Firefox ESR offers H.264 only with the OpenH264 plugin it downloads at run time
  // (no network here, and Debian has no package of the plugin): its lane's stand-in sends VP8.
  const shared = await startSharedServices({ env: { STANDIN_VIDEO_CODEC: 'vp8' } });
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
