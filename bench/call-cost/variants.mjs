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
// layStyle runs in the browser.
/* global document */
import { runCall } from './session.mjs';
import { withBenchCalls } from './tools.mjs';

/** A style laid over the app (once its call has started, unless FROM_THE_START); null: the app as built. */
const VARIANTS = {
  app: null,
  floor: null,
  // The parts over the video.
  'no-log': '.live__log-slot { display: none !important; }',
  'no-chrome': '.live__top, .live__bottom { display: none !important; }',
  // Nothing over the video: what the app's main thread costs with no page to draw.
  'no-ui': '.live__log-slot, .live__top, .live__bottom { display: none !important; }',
  'no-scrims': '.live__top, .live__bottom { background: none !important; }',
  'no-shadows': '.chat * { box-shadow: none !important; text-shadow: none !important; }',
  'no-animations': '* { animation: none !important; transition: none !important; }',
  // The cuts made, undone.
  mask: '.chat:not(.chat--empty) .chat__scroller { -webkit-mask-image: linear-gradient(180deg, transparent 0, #000 28px); mask-image: linear-gradient(180deg, transparent 0, #000 28px); }',
  'fill-both': '.msg, .live__top, .live__bottom { animation-fill-mode: both !important; }',
};
/** Variants laid from the page's first paint, not once calling: an animation's fill mode counts from its start. */
const FROM_THE_START = new Set(['fill-both']);

const names = process.argv.slice(2);
const unknown = names.filter((name) => !(name in VARIANTS));
if (names.length === 0 || unknown.length > 0) {
  console.error(`usage: node bench/call-cost/variants.mjs VARIANT… (of ${Object.keys(VARIANTS).join(', ')})`);
  process.exit(2);
}

/**
 * Adds `css` to the page: at once when `fromTheStart`, else once the call's Hang up button
 * shows (the pre-session screen needs the chrome a variant may hide).
 */
function layStyle({ css, fromTheStart }) {
  const timer = setInterval(() => {
    const calling = [...document.querySelectorAll('button')].some((b) => b.textContent?.includes('Hang up') || b.getAttribute('aria-label') === 'Hang up');
    if (!document.head || (!fromTheStart && !calling)) return;
    clearInterval(timer);
    const style = document.createElement('style');
    style.textContent = css;
    document.head.append(style);
  }, fromTheStart ? 0 : 250);
}

await withBenchCalls(async (call) => {
  for (const name of names) {
    const css = VARIANTS[name];
    await runCall({
      ...call,
      warmupS: Number(process.env.BENCH_VARIANT_WARMUP_S ?? 10),
      client: name === 'floor' ? 'floor' : 'app',
      rate: 1,
      windows: [Number(process.env.BENCH_VARIANT_S ?? 40)],
      profileS: 0,
      prepare: css ? (page) => page.addInitScript(layStyle, { css, fromTheStart: FROM_THE_START.has(name) }) : undefined,
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
