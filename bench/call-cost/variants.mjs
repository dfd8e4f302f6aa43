/**
 * What in the app's call costs the browser: the app's call with a style laid over it (a part
 * hidden once the call has started, or a cut undone from the start), against the app as
 * built and the floor, one window each, one after the other in the same run. Not a benchmark with goals
 * (bench/call-cost.mjs is); a tool for finding where the CPU above the floor goes.
 *
 * For each variant it prints the CPU per minute over every browser process, the compositor's
 * (the GPU process's VizCompositorThread, which draws every frame of the avatar's video and
 * whatever lies over it), the main thread's, and the compositor's work per frame of video:
 * the compositor's CPU over that of the renderer's video frame compositor, which does the same
 * work in every variant. A loaded machine raises both alike, so that ratio compares runs that
 * the load sets apart.
 *
 *   node bench/call-cost/variants.mjs app no-log mask floor   (after node bench/call-cost.mjs,
 *                                                              whose builds it uses)
 *   env: BENCH_VARIANT_S (40): the window; BENCH_VARIANT_WARMUP_S (10)
 */
import { runCall } from './session.mjs';
import { clientOf, prepareVariant, VARIANTS } from './styles.mjs';
import { withBenchCalls } from './tools.mjs';

const names = process.argv.slice(2);
const unknown = names.filter((name) => !(name in VARIANTS));
if (names.length === 0 || unknown.length > 0) {
  console.error(`usage: node bench/call-cost/variants.mjs VARIANT… (of ${Object.keys(VARIANTS).join(', ')})`);
  process.exit(2);
}

await withBenchCalls(async (call) => {
  for (const name of names) {
    await runCall({
      ...call,
      warmupS: Number(process.env.BENCH_VARIANT_WARMUP_S ?? 10),
      client: clientOf(name),
      rate: 1,
      windows: [Number(process.env.BENCH_VARIANT_S ?? 40)],
      profileS: 0,
      prepare: prepareVariant(name),
      onWindow: (w) => {
        const viz = w.byThreadSPerMin['gpu-process: VizCompositorTh'] ?? 0;
        const frames = w.byThreadSPerMin['renderer: VideoFrameCompo'] ?? NaN;
        console.log(
          `${name.padEnd(14)} CPU ${w.cpuSPerMin.toFixed(1)} s/min, compositor ${viz.toFixed(2)}, main thread ${w.mainSPerMin.toFixed(2)}; compositor per video frame ${(viz / frames).toFixed(2)} (the floor's: about 2.6)`,
        );
      },
    });
  }
});
