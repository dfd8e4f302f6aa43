/**
 * What the tools beside bench/call-cost.mjs (variants.mjs, trace.mjs) share: they run calls
 * on the builds and the test microphone that the benchmark made, served by a stand-in, with
 * the PulseAudio sink the avatar plays into.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { startStandin } from '../_setup.mjs';
import { BUILD_DIR, MIC_FILE, PHONE_VIEWPORT } from './session.mjs';

const { startAudioOutput } = await tsImport('../../tests/support/audioOutput.ts', import.meta.url);

/**
 * Runs `run(call)` with the stand-in and the sink up, and stops both after; `call` holds the
 * options every runCall of a tool takes (base, micFile, pulseServer, viewport). Exits 2
 * when the benchmark's builds are not there.
 */
export async function withBenchCalls(run) {
  if (!existsSync(join(BUILD_DIR, 'index.html')) || !existsSync(MIC_FILE)) {
    console.error('run node bench/call-cost.mjs (or its --quick) first: this uses its builds and its microphone');
    process.exit(2);
  }
  const output = await startAudioOutput();
  const standin = await startStandin({ env: { STANDIN_PUBLIC_DIR: BUILD_DIR } });
  try {
    await run({ base: standin.url, micFile: MIC_FILE, pulseServer: output.server, viewport: PHONE_VIEWPORT });
  } finally {
    await standin.stop();
    await output.stop();
  }
}
