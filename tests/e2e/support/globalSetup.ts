import { startStandin } from '../../support/standin.ts';

/** Starts one stand-in on a free port for the whole run and stops it afterwards. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const standin = await startStandin();
  process.env.STANDIN_URL = standin.url;
  return standin.stop;
}
