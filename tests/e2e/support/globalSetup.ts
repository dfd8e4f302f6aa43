import { startSharedServices } from '../../support/sharedServices.ts';

/**
 * Starts what every end-to-end test shares and stops it afterwards: an audio output
 * device for the browsers (exported as PULSE_SERVER) and one stand-in on a free port
 * (exported as STANDIN_URL). Workers and the browsers they launch inherit both.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const shared = await startSharedServices();
  process.env.AUDIO_OUTPUT_SINK = shared.sink;
  process.env.STANDIN_URL = shared.standinUrl;
  return shared.stop;
}
