/**
 * What every browser test run shares, started before the browsers and stopped after them:
 * an audio output device (PulseAudio with a null sink: tests/support/audioOutput.ts) and
 * one stand-in on a free port. Used by Playwright's global setup and by the engine lanes'.
 */
import { startAudioOutput } from './audioOutput.ts';
import { startStandin } from './standin.ts';

export interface SharedServices {
  /** PULSE_SERVER for the browsers (also set in this process's environment). */
  pulseServer: string;
  sink: string;
  /** The stand-in's origin. */
  standinUrl: string;
  stop(): Promise<void>;
}

/**
 * The test lanes run many sessions on a small machine: their stand-in streams the small video
 * profile (360x640 at 15 fps) instead of the default 540x960 at 25 fps, and `env` adds what a
 * lane needs (the Firefox lane's VP8).
 */
export async function startSharedServices(opts: { env?: Record<string, string> } = {}): Promise<SharedServices> {
  const output = await startAudioOutput();
  process.env.PULSE_SERVER = output.server;
  try {
    const standin = await startStandin({ env: { STANDIN_VIDEO_PROFILE: 'small', ...opts.env } });
    return {
      pulseServer: output.server,
      sink: output.sink,
      standinUrl: standin.url,
      stop: async () => {
        await standin.stop();
        await output.stop();
      },
    };
  } catch (error) {
    await output.stop();
    throw error;
  }
}
