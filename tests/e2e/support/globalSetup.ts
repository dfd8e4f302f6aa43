import { startAudioOutput } from '../../support/audioOutput.ts';
import { startStandin } from '../../support/standin.ts';

/**
 * Starts what every end-to-end test shares and stops it afterwards: an audio output
 * device for the browsers (PulseAudio with a null sink, exported as PULSE_SERVER) and one
 * stand-in on a free port (exported as STANDIN_URL). Workers and the browsers they
 * launch inherit both.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const output = await startAudioOutput();
  process.env.PULSE_SERVER = output.server;
  process.env.AUDIO_OUTPUT_SINK = output.sink;
  try {
    const standin = await startStandin();
    process.env.STANDIN_URL = standin.url;
    return async () => {
      await standin.stop();
      await output.stop();
    };
  } catch (error) {
    await output.stop();
    throw error;
  }
}
